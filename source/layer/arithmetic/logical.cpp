// torch.logical_and, torch.logical_or, torch.logical_xor, torch.logical_not: element-wise logic in
// which any nonzero value (NaN included) is true. The result is a bool tensor, held as 0/1 floats.
// Each runs on the pnnx.Expression evaluator as one call (logical_and(@0,@1), ...).
#include "layer/arithmetic/expression.hpp"
#include "layer/layer_registry.hpp"

namespace lumen {

// A logical operation, as one call of the expression language.
using Logical = ElementwiseCall<>;

LUMEN_REGISTER_LAYER(Logical, "torch.logical_and", "torch.logical_or", "torch.logical_xor",
                     "torch.logical_not");

}  // namespace lumen
