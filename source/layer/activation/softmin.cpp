// nn.Softmin / F.softmin: softmax(-x) along one dimension. The layer is the softmax family's
// (softmax.hpp); the kernel is kernel/softmax.hpp's.
#include "layer/activation/softmax.hpp"
#include "layer/layer_registry.hpp"

namespace lumen {

using Softmin = SoftmaxWithFunction<Softmax::Function::kSoftmin>;

LUMEN_REGISTER_LAYER(Softmin, "nn.Softmin", "F.softmin");

}  // namespace lumen
