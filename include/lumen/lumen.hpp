// Lumen's public API in one include: load a model once, run it in as many sessions as you like.
//
//   #include <lumen/lumen.hpp>
//
//   auto model = lumen::Model::Load("resnet18.pnnx.param");   // weights: the .bin beside it
//   lumen::Session session(model, {.threads = 2});
//   std::vector<lumen::Tensor> outputs =
//       session.Run({lumen::Tensor::FromRowMajor(pixels, {1, 3, 224, 224})});
//   std::vector<float> logits = outputs[0].ToRowMajor();
//
// Errors in a model file or in the inputs are thrown as lumen::Error with a message that names
// the file, line, operator and shapes involved.
#ifndef LUMEN_LUMEN_HPP_
#define LUMEN_LUMEN_HPP_

#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/quantize.hpp"
#include "lumen/session.hpp"
#include "lumen/summary.hpp"
#include "lumen/tensor.hpp"

#endif  // LUMEN_LUMEN_HPP_
