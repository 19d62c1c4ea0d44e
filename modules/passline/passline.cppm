// The passline library: one import for the whole public API.
//
//   import passline;
//
// Partitions keep each concept in its own small file; only this umbrella is the
// public module name.
export module passline;
export import :pass_info;
export import :context;
export import :concepts;
export import :sequential;
export import :pass;
