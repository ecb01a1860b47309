//! Every figure of every run kept whole, as JSON (written by hand: the project commands build
//! with the standard library alone).

use std::fmt::Write as _;

use super::context::Context;
use super::report::Samples;
use crate::json::json_string;

/// Every figure of every run, the context and the failures, as JSON.
pub fn document(s: &Samples, ctx: &Context, options: &str, sizes: &str) -> String {
    let mut out = String::from("{\n");
    let _ = writeln!(out, "  \"commit\": {},", json_string(&ctx.commit));
    let _ = writeln!(out, "  \"date_utc\": {},", json_string(&ctx.date));
    let _ = writeln!(out, "  \"machine\": {},", json_string(&ctx.machine()));
    let _ = writeln!(
        out,
        "  \"load_average\": {{\"start\": {}, \"end\": {}}},",
        json_string(&ctx.load_start),
        json_string(&ctx.load_end)
    );
    let _ = writeln!(out, "  \"options\": {},", json_string(options));
    let _ = writeln!(out, "  \"sizes\": {},", json_string(sizes));
    let _ = writeln!(out, "  \"runs\": {},", s.runs);
    out.push_str("  \"figures\": {");
    for (i, (k, v)) in s.values.iter().enumerate() {
        let values: Vec<String> = v
            .iter()
            .map(|x| x.filter(|x| x.is_finite()).map_or("null".into(), |x| x.to_string()))
            .collect();
        let _ = write!(
            out,
            "{}\n    {}: [{}]",
            if i > 0 { "," } else { "" },
            json_string(k),
            values.join(", ")
        );
    }
    out.push_str("\n  },\n  \"failures\": [");
    for (i, (run, bench, why)) in s.failures.iter().enumerate() {
        let _ = write!(
            out,
            "{}\n    {{\"run\": {run}, \"benchmark\": {}, \"error\": {}}}",
            if i > 0 { "," } else { "" },
            json_string(bench),
            json_string(why)
        );
    }
    out.push_str("\n  ]\n}\n");
    out
}
