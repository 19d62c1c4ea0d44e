#!/usr/bin/env python3
"""Google Benchmark JSON (--benchmark_format=json) as a markdown table.

    gbench_table.py RESULTS.json COUNTER [REFERENCE_SUFFIX]

One row per benchmark (medians when the run has repetitions), its COUNTER,
and, when REFERENCE_SUFFIX is given, the ratio of each row to the row of the
same group (the name's part before the last `_`, arguments such as
`/real_time` left out) whose name ends in it. A
counter named `ns_...` is a time per unit, which Google Benchmark reports in
seconds: it is shown in nanoseconds. `real_time` is shown in the run's unit.
"""
import json
import sys


def main() -> None:
    path, counter = sys.argv[1], sys.argv[2]
    reference = sys.argv[3] if len(sys.argv) > 3 else None
    with open(path, encoding="utf-8") as f:
        runs = json.load(f)["benchmarks"]
    medians = [r for r in runs if r.get("aggregate_name") == "median"]
    rows = medians or [r for r in runs if r.get("run_type", "iteration") == "iteration"]
    values = {}
    order = []
    unit = ""
    for row in rows:
        name = row.get("run_name", row["name"])
        if counter in row:
            values[name] = float(row[counter]) * (1e9 if counter.startswith("ns_") else 1)
            unit = row.get("time_unit", "") if counter == "real_time" else "ns" if counter.startswith("ns_") else ""
            order.append(name)

    def base(name: str) -> str:  # without the run's arguments, `/real_time` say
        return name.split("/", 1)[0]

    def group(name: str) -> str:
        return base(name).rsplit("_", 1)[0]

    refs = {group(n): v for n, v in values.items() if reference and base(n).endswith("_" + reference)}
    header = f"| benchmark | {counter} ({unit}) |" if unit else f"| benchmark | {counter} |"
    rule = "|---|---:|"
    if reference:
        header += f" ratio to {reference} |"
        rule += "---:|"
    print(header)
    print(rule)
    for name in order:
        line = f"| {name} | {values[name]:.3g} |"  # three significant digits
        if reference:
            ref = refs.get(group(name))
            line += f" {values[name] / ref:.3f} |" if ref else " |"
        print(line)


if __name__ == "__main__":
    main()
