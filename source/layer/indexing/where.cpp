// torch.where(condition, input, other): input where the condition holds, other elsewhere, the
// three broadcast together. input and other may be numbers (pnnx writes them as parameters).
#include "layer/indexing/masked_choice.hpp"
#include "layer/layer_registry.hpp"

namespace lumen {
namespace {

// A MaskedChoice over ($condition, $input, $other).
class Where : public MaskedChoice {
 public:
  // Finds the three operands by role (or, for input and other, as numbers).
  explicit Where(const LayerConfig& config)
      : MaskedChoice(config, {"condition", 0}, {"input", 1}, {"other", 2}) {}
};

}  // namespace

LUMEN_REGISTER_LAYER(Where, "torch.where");

}  // namespace lumen
