// The passline library: one import for the whole public API.
//
//   import passline;              // passes, pipelines, context, registry, analyses
//   import passline.instruments;  // the standard instruments
//
// Partitions keep each concept in its own small file, in folders by layer
// (see CMakeLists.txt). The internal ones (`:requirements`, `:analysis`,
// `:checks`, `:invoke`, `:node`, `:run`) export nothing, and `:plan` and
// `:text_format` little (`PlannedStep`, `plan_text`, `pass_text`); they are
// imported here only so that every interface partition belongs to the
// module's interface.
export module passline;

// core: the vocabulary
export import :pass_info;
export import :ir_traits;
export import :ir_view;
export import :value;
export import :error;
export import :config;
export import :options;
export import :instrument;
export import :reporting;
export import :analysis_manager;
export import :context;
export import :concepts;

// rules: the requirement rule and the compile-time checks
export import :diagnostics;
export import :requirements;
export import :analysis;
export import :checks;

// pipeline: passes and pipelines, planned and run
export import :invoke;
export import :node;
export import :plan;
export import :run;
export import :pass;
export import :sequential;
export import :fixed_point;
export import :compiled;
export import :resolution;
export import :slot;
export import :text_format;

// text: the registry and the pipeline text parser
export import :registry;
export import :pipeline_text;
