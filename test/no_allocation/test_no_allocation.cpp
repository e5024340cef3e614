// A session's runs must not touch the heap once it has run once at a shape: every operand,
// scratch buffer and layer state is allocated when the session plans that shape (or, for scratch
// a thread grows, by the first run).
//
// This file is its own test program (lumen_no_allocation_test) because it replaces the C
// allocator: a program that defines malloc and friends receives the calls of every library it
// loads (libstdc++, OpenBLAS) too, so the count covers all of them.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>

#include "io/golden_case.hpp"
#include "io/raw_file.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"
#include "support/source_directory.hpp"

extern "C" {
// glibc's own allocator, which ours forwards to.
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* pointer, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* pointer);
}

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
void Count() {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1);
}
}  // namespace

extern "C" {
void* malloc(size_t size) {
  Count();
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) {
  Count();
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, size_t size) {
  Count();
  return __libc_realloc(pointer, size);
}
void* memalign(size_t alignment, size_t size) {
  Count();
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  Count();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** pointer, size_t alignment, size_t size) {
  Count();
  *pointer = __libc_memalign(alignment, size);
  return *pointer ? 0 : ENOMEM;
}
void free(void* pointer) { __libc_free(pointer); }
}

namespace lumen {
namespace {

// Runs a corpus model once to warm up, then counts heap allocations over `runs` more runs,
// through both the copying Run(inputs, &outputs) and the zero-copy Run().
long AllocationsPerRun(const std::string& case_name, int threads, int runs) {
  const GoldenCase golden =
      ReadGoldenCase(lumen::test_support::SourceDirectory() + "/tmp/models/" + case_name);
  ModelOptions model_options;
  model_options.weights_path = golden.bin_path;
  SessionOptions session_options;
  session_options.threads = threads;
  Session session(Model::Load(golden.param_path, model_options), session_options);
  std::vector<Tensor> inputs;
  for (const auto& input : golden.inputs) inputs.push_back(ReadTensorFile(input.path, input.shape));
  std::vector<Tensor> outputs;
  session.Run(inputs, &outputs);
  allocations = 0;
  counting = true;
  for (int run = 0; run < runs; ++run) {
    session.Run(inputs, &outputs);
    session.Run();
  }
  counting = false;
  return allocations.load();
}

TEST(NoAllocation, CounterSeesAllocations) {
  // The counter itself must work, or the tests below would pass vacuously.
  allocations = 0;
  counting = true;
  std::vector<float>* vector = new std::vector<float>(1000);
  counting = false;
  delete vector;
  EXPECT_GE(allocations.load(), 2);
}

TEST(NoAllocation, ResNet18SingleThread) { EXPECT_EQ(AllocationsPerRun("resnet18", 1, 3), 0); }

TEST(NoAllocation, ResNet18TwoThreads) { EXPECT_EQ(AllocationsPerRun("resnet18", 2, 3), 0); }

TEST(NoAllocation, ResNet18Batch4) { EXPECT_EQ(AllocationsPerRun("resnet18_b4", 2, 2), 0); }

TEST(NoAllocation, YoloV5s) { EXPECT_EQ(AllocationsPerRun("yolov5s_detect", 2, 2), 0); }

// Attention, recurrent layers and products keep their buffers in the session (layer state and
// reserved scratch), on one thread and on two.
TEST(NoAllocation, SequenceLayers) {
  for (const char* name :
       {"mha_need_weights_b2", "mha_self_seqfirst", "mha_cross_kdim_vdim", "mha_causal_mask",
        "lstm_2l_bidir_bf", "lstm_h0c0", "gru_2l_bidir_bf", "rnn_relu_bidir", "matmul_broadcast",
        "matmul_vec", "einsum_bhqd_bhkd", "bmm"}) {
    for (int threads : {1, 2}) {
      EXPECT_EQ(AllocationsPerRun(name, threads, 2), 0) << name << " on " << threads << " threads";
    }
  }
}

// Padding (every mode), the padding modes of convolution, 1-D convolution and pooling, adaptive
// max pooling and the shape layers plan their copies and buffers in Prepare, on one thread and on
// two.
TEST(NoAllocation, PaddingAndShapeLayers) {
  for (const char* name : {"pad_constant_0p5",
                           "reflectionpad2d",
                           "replicationpad2d",
                           "zeropad2d",
                           "constantpad2d_m1",
                           "conv_pad_circular",
                           "conv_pad_reflect",
                           "conv_pad_replicate",
                           "conv1d",
                           "conv1d_s2_d2_g2",
                           "maxpool1d_k3_s2_p1",
                           "avgpool1d_k2_s2",
                           "adaptive_maxpool_3x3",
                           "pixelshuffle2",
                           "pixelunshuffle2",
                           "expand",
                           "repeat",
                           "select_dim1",
                           "stack2_dim1",
                           "max_dim1_indices",
                           "min_dim2_keepdim",
                           "upsample_nearest_fn",
                           "lstm_classifier"}) {
    for (int threads : {1, 2}) {
      EXPECT_EQ(AllocationsPerRun(name, threads, 2), 0) << name << " on " << threads << " threads";
    }
  }
}

// The normalisation layers reserve their kernel's scratch in Prepare: contiguous groups, lanes
// (LayerNorm over the last dimension, InstanceNorm over channels) and whole transformers.
TEST(NoAllocation, NormalisationLayers) {
  for (const char* name : {"convnext_blocks", "transformer_prenorm_b2", "layernorm_seq_eps",
                           "groupnorm_g2", "instancenorm_affine", "normalize_dim1", "prelu_c4"}) {
    for (int threads : {1, 2}) {
      EXPECT_EQ(AllocationsPerRun(name, threads, 2), 0) << name << " on " << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace lumen
