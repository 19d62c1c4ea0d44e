// Pass<IR>: a type-erased, immutable pass value, cheap to copy.
//
// It is how passes chosen at run time (by name, from pipeline text) are held.
// Any static pass or static pipeline converts to one; so does a callable with a
// PassInfo, the runtime counterpart of TVM's CreateModulePass.
module;
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>
export module passline:pass;
import :pass_info;
import :context;
import :concepts;
import :invoke;

export namespace passline {

template <class IR>
class Pass {
 public:
  /// From a static pass type of either shape, or a static pipeline.
  template <PassFor<IR> P>
  Pass(P pass) : self_(std::make_shared<const Static<P>>(std::move(pass))) {}

  /// From a callable and the PassInfo that describes it. The PassInfo's strings
  /// are copied, so they may come from run-time data.
  Pass(const PassInfo& info, std::function<IR(IR, PassContext&)> run)
      : self_(std::make_shared<const Dynamic>(info, std::move(run))) {}

  const PassInfo& info() const { return self_->info; }

  IR operator()(IR ir, PassContext& ctx) const { return self_->run(std::move(ir), ctx); }

 private:
  struct Model {
    explicit Model(const PassInfo& pass_info) : info(pass_info) {}
    virtual ~Model() = default;
    virtual IR run(IR ir, PassContext& ctx) const = 0;
    PassInfo info;
  };

  template <class P>
  struct Static final : Model {
    explicit Static(P p) : Model(P::info), pass(std::move(p)) {}
    IR run(IR ir, PassContext& ctx) const override {
      return detail::invoke_pass(pass, std::move(ir), ctx);
    }
    P pass;
  };

  struct Dynamic final : Model {
    Dynamic(const PassInfo& pass_info, std::function<IR(IR, PassContext&)> fn)
        : Model(pass_info),
          name(pass_info.name),
          summary(pass_info.summary),
          required(pass_info.required.begin(), pass_info.required.end()),
          required_views(required.begin(), required.end()),
          run_fn(std::move(fn)) {
      this->info.name = name;
      this->info.summary = summary;
      this->info.required = required_views;
    }
    IR run(IR ir, PassContext& ctx) const override { return run_fn(std::move(ir), ctx); }
    std::string name;
    std::string summary;
    std::vector<std::string> required;
    std::vector<std::string_view> required_views;
    std::function<IR(IR, PassContext&)> run_fn;
  };

  std::shared_ptr<const Model> self_;
};

/// Runs `passes` in order under the gating rule of `ctx`.
template <class IR>
IR run_sequence(const std::vector<Pass<IR>>& passes, IR ir, PassContext& ctx) {
  for (const Pass<IR>& pass : passes) {
    if (ctx.pass_enabled(pass.info())) ir = pass(std::move(ir), ctx);
  }
  return ir;
}

}  // namespace passline
