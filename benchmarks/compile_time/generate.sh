#!/usr/bin/env bash
# Writes a translation unit with N distinct pass types, pass i requiring passes
# i-1 and i-2 (each declares that it keeps what the others established,
# `preserves_all`, so the pipeline is valid as listed and resolution inserts
# each pass once), and one use of them as a pipeline:
#   baseline  Sequential<P0..PN-1>::run          (the pipeline, no compile-time check)
#   check     Sequential<P0..PN-1>{}(...)        (the ordering check, then the same run)
#   resolve   ResolvedSequential<Catalog<P0..PN-1>, P1, P3, ...>{}(...)
#             (resolution inserts every even pass; the result is the same pipeline,
#             its inserted passes marked as such)
#   text      Catalog<P0..PN-1>::Pipeline<"P0,...,PN-1">{}(...)
#             (the same pipeline read from text at compile time, then checked and run)
#   generate.sh N baseline|check|resolve > file.cpp
set -euo pipefail
n="$1"; variant="$2"
echo "import passline;"
for ((i = 0; i < n; ++i)); do
  required=""
  if ((i >= 2)); then required=", .required = passline::needs<\"P$((i - 1))\", \"P$((i - 2))\">"
  elif ((i == 1)); then required=", .required = passline::needs<\"P0\">"; fi
  echo "struct P$i { static constexpr passline::PassInfo info{.name = \"P$i\", .opt_level = $((i % 4))$required, .preserves = passline::preserves_all};"
  echo "  int operator()(int ir, passline::PassContext&) const { return ir * 3 + $i; } };"
done
all=$(for ((i = 0; i < n; ++i)); do printf 'P%d, ' "$i"; done); all="${all%, }"
odd=$(for ((i = 1; i < n; i += 2)); do printf 'P%d, ' "$i"; done); odd="${odd%, }"
# What resolution makes: the even passes marked as inserted for their users.
resolved=$(for ((i = 0; i < n; ++i)); do
  if ((i % 2 == 0)); then printf 'passline::Inserted<P%d>, ' "$i"; else printf 'P%d, ' "$i"; fi
done); resolved="${resolved%, }"
case "$variant" in
  baseline) echo "int run(passline::PassContext& ctx) { return passline::Sequential<$all>{}.run(0, ctx); }" ;;
  check) echo "int run(passline::PassContext& ctx) { return passline::Sequential<$all>{}(0, ctx); }" ;;
  resolve)
    echo "using Resolved = passline::ResolvedSequential<passline::Catalog<$all>, $odd>;"
    echo "static_assert(__is_same(Resolved, passline::Sequential<$resolved>));"
    echo "int run(passline::PassContext& ctx) { return Resolved{}(0, ctx); }" ;;
  text)
    names=$(for ((i = 0; i < n; ++i)); do printf 'P%d,' "$i"; done); names="${names%,}"
    echo "using FromText = passline::Catalog<$all>::Pipeline<\"$names\">;"
    echo "static_assert(__is_same(FromText, passline::Sequential<$all>));"
    echo "int run(passline::PassContext& ctx) { return FromText{}(0, ctx); }" ;;
  *) echo "unknown variant $variant" >&2; exit 1 ;;
esac
