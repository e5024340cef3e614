// nn.LogSoftmax / F.log_softmax: log(softmax(x)) along one dimension, as (x - max) - log(sum of
// exp(x - max)) so that it stays finite where the softmax underflows. The layer is the softmax
// family's (softmax.hpp); the kernel is kernel/softmax.hpp's.
#include "layer/activation/softmax.hpp"
#include "layer/layer_registry.hpp"

namespace lumen {

using LogSoftmax = SoftmaxWithFunction<Softmax::Function::kLogSoftmax>;

LUMEN_REGISTER_LAYER(LogSoftmax, "nn.LogSoftmax", "F.log_softmax", "torch.log_softmax",
                     "Tensor.log_softmax");

}  // namespace lumen
