// nn.LSTM, nn.GRU and nn.RNN against PyTorch: several layers, both directions, batch-first,
// sequence-first and unbatched inputs, batch > 1, with and without biases and initial states, every
// output, steps shared among threads; shape inference for other lengths and batches, and errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/case_runner.hpp"
#include "support/sequence_layer_cases.hpp"

namespace lumen {
namespace {

using test_support::InferShapes;
using test_support::LayerError;
using test_support::MakeOperator;
using test_support::Weight;
using ::testing::HasSubstr;

LUMEN_CORPUS_CASE_TEST(Recurrent, lstm)
LUMEN_CORPUS_CASE_TEST(Recurrent, lstm_2l_bidir_bf)
LUMEN_CORPUS_CASE_TEST(Recurrent, lstm_h0c0)
LUMEN_CORPUS_CASE_TEST(Recurrent, lstm_b3)
LUMEN_CORPUS_CASE_TEST(Recurrent, gru)
LUMEN_CORPUS_CASE_TEST(Recurrent, gru_2l_bidir_bf)
LUMEN_CORPUS_CASE_TEST(Recurrent, rnn_tanh)
LUMEN_CORPUS_CASE_TEST(Recurrent, rnn_relu_bidir)
LUMEN_SEQUENCE_CASE_TEST(Recurrent, lstm_2l_bidir_seqfirst_b2_h0c0)
LUMEN_SEQUENCE_CASE_TEST(Recurrent, lstm_unbatched_bidir_h0c0)
LUMEN_SEQUENCE_CASE_TEST(Recurrent, lstm_batchfirst_b3_y_only)
LUMEN_SEQUENCE_CASE_TEST(Recurrent, lstm_no_bias)
LUMEN_SEQUENCE_CASE_TEST(Recurrent, lstm_parallel_steps_bidir_b4)
LUMEN_SEQUENCE_CASE_TEST(Recurrent, gru_seqfirst_b3_h0)
LUMEN_SEQUENCE_CASE_TEST(Recurrent, gru_bidir_batchfirst_b2_no_bias)
LUMEN_SEQUENCE_CASE_TEST(Recurrent, gru_unbatched_2l)
LUMEN_SEQUENCE_CASE_TEST(Recurrent, gru_parallel_steps)
LUMEN_SEQUENCE_CASE_TEST(Recurrent, rnn_tanh_3l_batchfirst_b2)
LUMEN_SEQUENCE_CASE_TEST(Recurrent, rnn_relu_unbatched_h0)
LUMEN_SEQUENCE_CASE_TEST(Recurrent, rnn_relu_2l_bidir_seqfirst_b2_h0)

// A one-layer `type` op (input_size 4, hidden_size 3) with zero weights.
Node Recurrent(const std::string& type, int inputs, int outputs, bool batch_first,
               bool bidirectional = false, std::vector<std::string> extra = {}) {
  const int gates = type == "nn.LSTM" ? 4 : type == "nn.GRU" ? 3 : 1;
  std::vector<std::string> params = {"input_size=4",
                                     "hidden_size=3",
                                     "num_layers=1",
                                     "bias=True",
                                     batch_first ? "batch_first=True" : "batch_first=False",
                                     bidirectional ? "bidirectional=True" : "bidirectional=False"};
  params.insert(params.end(), extra.begin(), extra.end());
  std::map<std::string, Weight> weights;
  for (const std::string suffix : {"_l0", "_l0_reverse"}) {
    if (suffix == "_l0_reverse" && !bidirectional) continue;
    weights["weight_ih" + suffix] = Weight{{gates * 3, 4}, {}};
    weights["weight_hh" + suffix] = Weight{{gates * 3, 3}, {}};
    weights["bias_ih" + suffix] = Weight{{gates * 3}, {}};
    weights["bias_hh" + suffix] = Weight{{gates * 3}, {}};
  }
  return MakeOperator(type, params, weights, inputs, outputs);
}

TEST(Recurrent, InfersShapesForOtherLengthsAndBatches) {
  EXPECT_EQ(InferShapes(Recurrent("nn.LSTM", 1, 3, false), {{50, 6, 4}}),
            (std::vector<Shape>{{50, 6, 3}, {1, 6, 3}, {1, 6, 3}}));
  EXPECT_EQ(InferShapes(Recurrent("nn.GRU", 2, 2, true, true), {{6, 50, 4}, {2, 6, 3}}),
            (std::vector<Shape>{{6, 50, 6}, {2, 6, 3}}));
  EXPECT_EQ(InferShapes(Recurrent("nn.RNN", 1, 2, true), {{50, 4}}),
            (std::vector<Shape>{{50, 3}, {1, 3}}));
  EXPECT_EQ(InferShapes(Recurrent("nn.LSTM", 1, 1, true), {{2, 9, 4}}),
            (std::vector<Shape>{{2, 9, 3}}));
}

TEST(Recurrent, NamesTheShapesItCannotUse) {
  EXPECT_THAT(LayerError(Recurrent("nn.LSTM", 1, 3, false), {{5, 2, 6}}),
              HasSubstr("expected an input of shape (L,N,input_size) with input_size 4, got "
                        "(5,2,6)"));
  EXPECT_THAT(LayerError(Recurrent("nn.LSTM", 3, 3, true), {{2, 5, 4}, {1, 2, 3}, {1, 3, 3}}),
              HasSubstr("expected c0 of shape (1,2,3) for input (2,5,4), got (1,3,3)"));
  EXPECT_THAT(LayerError(Recurrent("nn.GRU", 3, 2, true), {{2, 5, 4}, {1, 2, 3}, {1, 2, 3}}),
              HasSubstr("expected the input and optionally h0, got 3 inputs"));
  EXPECT_THAT(LayerError(Recurrent("nn.GRU", 1, 3, true), {{2, 5, 4}}),
              HasSubstr("expected at most 2 outputs, got 3"));
  EXPECT_THAT(LayerError(Recurrent("nn.LSTM", 1, 1, true, false, {"proj_size=2"}), {{2, 5, 4}}),
              HasSubstr("proj_size 2 is not supported"));
  EXPECT_THAT(
      LayerError(Recurrent("nn.RNN", 1, 1, true, false, {"nonlinearity=gelu"}), {{2, 5, 4}}),
      HasSubstr("nonlinearity must be tanh or relu, got 'gelu'"));
  EXPECT_THAT(LayerError(Recurrent("nn.LSTM", 1, 1, true, true), {{2, 5, 4}}), "");
  Node missing = Recurrent("nn.LSTM", 1, 1, true, true);
  missing.attributes.erase("weight_hh_l0_reverse");
  EXPECT_THAT(LayerError(missing, {{2, 5, 4}}), HasSubstr("weight_hh_l0_reverse"));
}

}  // namespace
}  // namespace lumen
