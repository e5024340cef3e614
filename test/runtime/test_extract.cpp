// Session::Extract on ResNet18 against PyTorch's own intermediate values: the stem convolution
// (before its ReLU, so the model is loaded without fusion), its ReLU, the max pool, each
// residual stage, the pooled and the flattened features. The references are written by
// scripts/make_operand_references.py, which runs the same graph op by op in PyTorch.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "io/golden_case.hpp"
#include "io/raw_file.hpp"
#include "lumen/error.hpp"
#include "lumen/model.hpp"
#include "lumen/session.hpp"
#include "support/kernel_testing.hpp"
#include "support/source_directory.hpp"

namespace lumen {
namespace {

const std::string kCase = lumen::test_support::SourceDirectory() + "/tmp/models/resnet18";

struct OperandReference {
  std::string name;
  Shape shape;
};

std::vector<OperandReference> ReadIndex() {
  std::ifstream index(kCase + "/operands/index.txt");
  std::vector<OperandReference> references;
  for (std::string line; std::getline(index, line);) {
    std::istringstream fields(line);
    OperandReference reference;
    std::string shape;
    fields >> reference.name >> shape;
    std::istringstream extents(shape);
    for (std::string extent; std::getline(extents, extent, ',');) {
      reference.shape.push_back(static_cast<uint32_t>(std::stoul(extent)));
    }
    references.push_back(reference);
  }
  return references;
}

TEST(Extract, ResNet18OperandsMatchPyTorch) {
  const GoldenCase golden = ReadGoldenCase(kCase);
  ModelOptions options;
  options.fuse = false;  // the convolution's own output exists only without fusion
  Session session(Model::Load(golden.param_path, options));
  session.SetInputShapes({golden.inputs[0].shape});
  const Tensor input = ReadTensorFile(golden.inputs[0].path, golden.inputs[0].shape);
  std::copy(input.data(), input.data() + input.size(), session.input(0).data());
  const std::vector<OperandReference> references = ReadIndex();
  ASSERT_EQ(references.size(), 9u);
  for (const OperandReference& reference : references) {
    const Tensor& operand = session.Extract(reference.name);
    ASSERT_EQ(operand.shape(), reference.shape) << reference.name;
    const std::vector<float> expected =
        ReadFloatFile(kCase + "/operands/" + reference.name + ".f32", operand.size());
    test_support::ExpectClose(operand.ToRowMajor(), expected, golden.absolute_tolerance,
                              golden.relative_tolerance, "operand " + reference.name);
  }
  // Extracted operands stay readable after a full run, and the output is still PyTorch's.
  session.Run();
  const std::vector<float> expected_output =
      ReadFloatFile(golden.outputs[0].path, session.output(0).size());
  test_support::ExpectClose(session.output(0).ToRowMajor(), expected_output,
                            golden.absolute_tolerance, golden.relative_tolerance, "output");
  const std::vector<float> stage =
      ReadFloatFile(kCase + "/operands/24.f32", session.operand("24").size());
  test_support::ExpectClose(session.operand("24").ToRowMajor(), stage, golden.absolute_tolerance,
                            golden.relative_tolerance, "operand 24 after Run");
}

TEST(Extract, AFusedOperandIsRefusedWithAHint) {
  Session session(Model::Load(kCase + "/model.pnnx.param"));
  session.SetInputShapes({{1, 3, 224, 224}});
  try {
    session.Extract("1");
    FAIL() << "the fused-away convolution output was returned";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("fusion off"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace lumen
