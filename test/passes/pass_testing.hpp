// What the pass tests share: graphs written as pnnx param text, with made-up weights, built into a
// LayerGraph as the runtime builds one before its passes, or into a model with or without them.
#ifndef LUMEN_TEST_PASSES_PASS_TESTING_HPP_
#define LUMEN_TEST_PASSES_PASS_TESTING_HPP_

#include <memory>
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "lumen/model.hpp"
#include "lumen/tensor.hpp"
#include "passes/layer_graph.hpp"

namespace lumen {
namespace test_support {

// A param file's text around its operator lines (pnnx.Input and pnnx.Output included): the magic
// number and the operator and operand counts.
std::string ParamText(const std::vector<std::string>& operator_lines);

// The graph of a param text ("7767517\n...", pnnx.Input and pnnx.Output lines included), every
// weight filled with small values that differ from one element to the next.
Graph GraphWithWeights(const std::string& param_text);

// The graph's layers linked to its operands, before any pass (steps in file order).
LayerGraph BuildLayerGraph(const std::string& param_text);

// The model of the text, with the graph passes (fuse) or without them.
std::shared_ptr<const Model> BuildModel(const std::string& param_text, bool fuse);

// The type of every step, in order.
std::vector<std::string> StepTypes(const std::vector<LayerGraph::Step>& steps);

// The index of the operand called `name`, or -1.
int OperandIndex(const LayerGraph& graph, const std::string& name);

// An input of `shape` whose values differ from one element to the next, between -5.5 and 5.6 (so
// that sigmoids and clamps see both their flat ends and their slopes).
Tensor VaryingInput(const Shape& shape);

// Expects `pass` to rewrite nothing in the graph of `operator_lines` (see ParamText) and to leave
// its steps as they are; `why` names the case in a failure.
void ExpectPassLeavesAlone(int (*pass)(LayerGraph*), const std::vector<std::string>& operator_lines,
                           const std::string& why);

// Runs the text's model with and without the passes on `input` and expects the same outputs,
// within `tolerance` of the larger magnitude (the passes may round differently, never compute
// something else).
void ExpectPassesKeepTheResults(const std::string& param_text, const Tensor& input,
                                float tolerance = 1e-5f);

}  // namespace test_support
}  // namespace lumen

#endif  // LUMEN_TEST_PASSES_PASS_TESTING_HPP_
