// A user's program: loads resnet18 through the public API only and compares its output with
// PyTorch's. Usage: consumer CASE_DIR (a tmp/models case: model.pnnx.param/.bin, in0.f32,
// out0.f32).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <vector>

#include "lumen/lumen.hpp"

// Armadillo stays inside the library (the tensors' storage, behind lumen/tensor.hpp): a program
// that uses Lumen compiles without it, and gets none of its settings from the package.
#if defined(ARMA_VERSION_MAJOR) || defined(ARMA_DONT_USE_WRAPPER)
#error "Armadillo reaches this program through Lumen's headers or its package"
#endif

static std::vector<float> ReadFloats(const std::string& path, size_t count) {
  std::vector<float> values(count);
  std::ifstream file(path, std::ios::binary);
  file.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(count * 4));
  if (!file) throw lumen::Error(path + ": cannot read " + std::to_string(count) + " floats");
  return values;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer CASE_DIR\n");
    return 2;
  }
  const std::string directory = argv[1];
  try {
    auto model = lumen::Model::Load(directory + "/model.pnnx.param");
    lumen::SessionOptions options;
    options.threads = 2;
    lumen::Session session(model, options);
    const lumen::Tensor input = lumen::Tensor::FromRowMajor(
        ReadFloats(directory + "/in0.f32", 3 * 224 * 224), {1, 3, 224, 224});
    const std::vector<float> got = session.Run({input})[0].ToRowMajor();
    const std::vector<float> expected = ReadFloats(directory + "/out0.f32", 1000);
    double largest = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
      largest = std::fmax(largest, std::fabs(got[i] - expected[i]) - 1e-4 * std::fabs(expected[i]));
    }
    std::printf("resnet18 through the package: max error beyond rtol %.3g -> %s\n", largest,
                largest <= 1e-4 ? "PASS" : "FAIL");
    return largest <= 1e-4 ? 0 : 1;
  } catch (const lumen::Error& error) {
    std::fprintf(stderr, "consumer: %s\n", error.what());
    return 2;
  }
}
