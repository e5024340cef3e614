// torch.eq, torch.ne, torch.lt, torch.le, torch.gt, torch.ge: element-wise comparison of two
// broadcast operands, or of one with the scalar `other`. The result is a bool tensor, which Lumen
// holds as 0/1 floats. Each runs on the pnnx.Expression evaluator as one call (eq(@0,@1), ...).
#include "layer/arithmetic/expression.hpp"
#include "layer/layer_registry.hpp"

namespace lumen {
namespace {

// A comparison, as one call of the expression language.
class Comparison : public Expression {
 public:
  explicit Comparison(const LayerConfig& config)
      : Expression(config, ElementwiseExpression(config, FunctionOfOpType(config))) {}
};

}  // namespace

LUMEN_REGISTER_LAYER(Comparison, "torch.eq", "torch.ne", "torch.lt", "torch.le", "torch.gt",
                     "torch.ge");

}  // namespace lumen
