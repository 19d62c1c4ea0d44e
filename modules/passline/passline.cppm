// The passline library: one import for the whole public API.
//
//   import passline;
//
// Partitions keep each concept in its own small file; only this umbrella is the
// public module name. `:requirements`, `:analysis`, `:checks`, `:invoke` and
// `:text_format` are internal: they export nothing and are imported here only
// so that every interface partition belongs to the module's interface.
export module passline;
export import :pass_info;
export import :context;
export import :analysis_manager;
export import :ir_traits;
export import :concepts;
export import :diagnostics;
export import :sequential;
export import :fixed_point;
export import :resolution;
export import :compiled;
export import :pass;
export import :error;
export import :value;
export import :config;
export import :instrument;
export import :instruments;
export import :verify_preserved;
export import :diff;
export import :output_file;
export import :message;
export import :shell_words;
export import :reporting;
export import :ir_view;
export import :options;
export import :slot;
export import :registry;
export import :pipeline_text;
export import :suggest;
export import :plan;
export import :text_format;
export import :requirements;
export import :analysis;
export import :checks;
export import :invoke;
export import :parallel;
