// Entering a temporary context would leave PassContext::current() pointing at
// a context that is gone at the end of the statement. The twin names it first.
// expect-error: call to deleted member function 'enter'
// max-errors: 1
import passline;

int level() {
#ifdef PASSLINE_COMPILE_FAIL
  auto scope = passline::PassContext{.opt_level = 3}.enter();
#else
  passline::PassContext ctx{.opt_level = 3};
  auto scope = ctx.enter();
#endif
  return passline::PassContext::current().opt_level;
}
