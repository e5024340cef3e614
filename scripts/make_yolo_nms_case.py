#!/usr/bin/env python3
"""Writes test/data/yolo/nms_case.txt: random boxes and the boxes torchvision's class-wise NMS keeps.

Run with Debian's Python, which has python3-torch and python3-torchvision:
    /usr/bin/python3 scripts/make_yolo_nms_case.py
The C++ test (test/demos/test_yolo_postprocess.cpp) checks Lumen's NMS keeps exactly these.
"""
import pathlib

import torch
import torchvision

IOU_THRESHOLD = 0.45
generator = torch.Generator().manual_seed(5)
count = 300
centres = torch.rand(count, 2, generator=generator) * 100
sizes = torch.rand(count, 2, generator=generator) * 50 + 20
boxes = torch.cat([centres - sizes / 2, centres + sizes / 2], dim=1)
# Distinct scores, so that the order of equal scores cannot matter.
scores = torch.randperm(count, generator=generator).float() / count + 0.001
classes = torch.randint(0, 4, (count,), generator=generator)
keep = torchvision.ops.batched_nms(boxes, scores, classes, IOU_THRESHOLD)

path = pathlib.Path(__file__).resolve().parent.parent / "test/data/yolo/nms_case.txt"
path.parent.mkdir(parents=True, exist_ok=True)
with open(path, "w") as out:
    out.write(f"iou {IOU_THRESHOLD}\n")
    for box, score, cls in zip(boxes.tolist(), scores.tolist(), classes.tolist()):
        out.write("box {:.6f} {:.6f} {:.6f} {:.6f} {:.6f} {}\n".format(*box, score, cls))
    out.write("keep " + " ".join(str(i) for i in keep.tolist()) + "\n")
print(f"{path}: {count} boxes, torchvision keeps {len(keep)}")
