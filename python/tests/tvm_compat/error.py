"""tvm.error: TVM's error is a RuntimeError; passline raises RuntimeErrors
(PipelineError and those derived from it) or a pass's own exception."""
TVMError = RuntimeError
