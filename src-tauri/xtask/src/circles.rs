//! The modules inside each crate are layered as the crates are: no module imports another that
//! imports it back, directly or through others. Read from the code's own paths (`use` lines and
//! `crate::…`, `super::…`, `self::…` paths), the test modules aside.
//!
//! A module and the modules inside it are one module seen from outside: a parent may re-export
//! what its children define, and a child may use its parent's items. What must not happen is two
//! modules of one level (the children of one parent) that use each other: then neither can be
//! read, changed or moved without the other. An import from `a::b::x` of `a::c::y` is an edge
//! `a::b -> a::c` between the two children of `a`; the crate root is every module's parent.

use std::collections::{BTreeMap, BTreeSet};

/// A module by its path from the crate root (`["receipts", "ingest"]`); the root is empty.
pub type Module = Vec<String>;

/// An edge between two modules of one level, with the first place that made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    pub from: Module,
    pub to: Module,
    /// `file:line uses path`.
    pub because: String,
}

/// One source file of a crate: its module, its path (for messages) and its code with the test
/// modules taken out.
pub struct Source {
    pub module: Module,
    pub path: String,
    pub code: String,
}

/// The module of a file, from its path below the crate's `src/`: `lib.rs`, `main.rs` → root;
/// `a/mod.rs` and `a.rs` → `a`; `a/b.rs` → `a::b`.
pub fn module_of(rel: &str) -> Module {
    let rel = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut parts: Vec<String> = rel.split('/').map(str::to_owned).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// Every circle among the modules of one level, each as the modules in order and the edges that
/// close it.
pub fn circles(sources: &[Source]) -> Vec<Vec<Edge>> {
    let modules: BTreeSet<Module> = sources.iter().map(|s| s.module.clone()).collect();
    let mut lifted: BTreeMap<(Module, Module), String> = BTreeMap::new();
    for s in sources {
        for (line, path) in paths(&s.code) {
            let Some(target) = resolve(&modules, &s.module, &path) else {
                continue;
            };
            if let Some((a, b)) = lift(&s.module, &target) {
                lifted
                    .entry((a, b))
                    .or_insert_with(|| format!("{}:{line} uses {}", s.path, path.join("::")));
            }
        }
    }
    let mut graph: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (a, b) in lifted.keys() {
        graph.entry(a.clone()).or_default().insert(b.clone());
    }
    strongly_connected(&graph)
        .into_iter()
        .map(|component| {
            let cycle = cycle_in(&graph, &component);
            cycle
                .windows(2)
                .map(|w| Edge {
                    from: w[0].clone(),
                    to: w[1].clone(),
                    because: lifted[&(w[0].clone(), w[1].clone())].clone(),
                })
                .collect()
        })
        .collect()
}

/// The edges among the children of `parent` (their names), each a use of one by the other or by
/// a module inside it.
pub fn edges_among_children(sources: &[Source], parent: &[String]) -> BTreeSet<(String, String)> {
    let modules: BTreeSet<Module> = sources.iter().map(|s| s.module.clone()).collect();
    let mut out = BTreeSet::new();
    for s in sources {
        for (_, path) in paths(&s.code) {
            let lifted = resolve(&modules, &s.module, &path).and_then(|target| lift(&s.module, &target));
            if let Some((a, b)) = lifted.filter(|(a, _)| a[..a.len() - 1] == *parent) {
                out.insert((a[parent.len()].clone(), b[parent.len()].clone()));
            }
        }
    }
    out
}

/// The edges of a graph without a circle that no longer way implies: what a picture of its
/// layers needs (an edge a -> c goes when a -> b -> c is drawn).
pub fn without_implied(edges: &BTreeSet<(String, String)>) -> BTreeSet<(String, String)> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges {
        next.entry(a).or_default().push(b);
    }
    let reaches_without = |from: &str, to: &str| {
        // Whether `to` is reached from `from` by a path of two edges or more.
        let mut seen = BTreeSet::new();
        let mut todo: Vec<&str> = next
            .get(from)
            .into_iter()
            .flatten()
            .filter(|n| **n != to)
            .copied()
            .collect();
        while let Some(n) = todo.pop() {
            if n == to {
                return true;
            }
            if seen.insert(n) {
                todo.extend(next.get(n).into_iter().flatten().copied());
            }
        }
        false
    };
    edges.iter().filter(|(a, b)| !reaches_without(a, b)).cloned().collect()
}

/// The edge between the two children of the deepest module holding both `from` and `to`; none
/// when one holds the other.
fn lift(from: &Module, to: &Module) -> Option<(Module, Module)> {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    if common == from.len() || common == to.len() {
        return None;
    }
    Some((from[..=common].to_vec(), to[..=common].to_vec()))
}

/// The module a path names, from `at`: the longest module of the crate the path starts with.
/// None for paths outside the crate (other crates, the standard library, `$crate` in macros),
/// and for the crate root itself.
fn resolve(modules: &BTreeSet<Module>, at: &Module, path: &[String]) -> Option<Module> {
    let mut absolute: Module = match path.first().map(String::as_str)? {
        "crate" => Vec::new(),
        "self" => at.clone(),
        "super" => at[..at.len().checked_sub(1)?].to_vec(),
        // A path from this module to one of its children (`use child::Item;`).
        first => {
            let mut child = at.clone();
            child.push(first.to_owned());
            if !modules.contains(&child) {
                return None;
            }
            at.clone()
        }
    };
    let mut rest = match path[0].as_str() {
        "crate" | "self" | "super" => &path[1..],
        _ => path,
    };
    while rest.first().map(String::as_str) == Some("super") {
        absolute.pop();
        rest = &rest[1..];
    }
    let mut found = None;
    for segment in rest {
        absolute.push(segment.clone());
        if modules.contains(&absolute) {
            found = Some(absolute.clone());
        } else {
            break;
        }
    }
    found.filter(|m| !m.is_empty())
}

/// Every module path the code names, with its line (from 1): each path of a `use` item (its
/// groups expanded) and each `crate::`, `super::` or `self::` path elsewhere.
pub fn paths(code: &str) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, raw) in code.lines().enumerate() {
        let line = code_only(raw);
        if let Some((start, mut text)) = pending.take() {
            text.push(' ');
            text.push_str(&line);
            finish_use(start, text, &mut pending, &mut out);
            continue;
        }
        let trimmed = line.trim_start();
        let item = ["pub(crate) use ", "pub(super) use ", "pub use ", "use "]
            .iter()
            .find_map(|p| trimmed.strip_prefix(p));
        match item {
            Some(rest) => finish_use(i + 1, rest.to_owned(), &mut pending, &mut out),
            None => out.extend(inline_paths(&line).into_iter().map(|p| (i + 1, p))),
        }
    }
    out
}

/// A `use` item read so far: expanded once its `;` is read, else kept pending.
fn finish_use(start: usize, text: String, pending: &mut Option<(usize, String)>, out: &mut Vec<(usize, Vec<String>)>) {
    match text.find(';') {
        Some(end) => out.extend(expand(&text[..end]).into_iter().map(|p| (start, p))),
        None => *pending = Some((start, text)),
    }
}

/// The paths of a use tree: `a::{b, c::{d, e as f}, self}` → `a::b`, `a::c::d`, `a::c::e`, `a`.
fn expand(tree: &str) -> Vec<Vec<String>> {
    fn walk(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
        let tree = tree.trim();
        if tree.is_empty() {
            return;
        }
        if let Some(open) = tree.find('{') {
            let close = tree.rfind('}').unwrap_or(tree.len());
            let mut base = prefix.to_vec();
            base.extend(segments(tree[..open].trim_end_matches("::")));
            for part in split_top(&tree[open + 1..close]) {
                walk(&base, part, out);
            }
            return;
        }
        let name = tree.split(" as ").next().unwrap_or(tree);
        let mut path = prefix.to_vec();
        let keep_self = path.is_empty();
        path.extend(segments(name).into_iter().filter(|s| s != "self" || keep_self));
        if !path.is_empty() && path.last().map(String::as_str) != Some("*") {
            out.push(path);
        } else if path.len() > 1 {
            path.pop();
            out.push(path);
        }
    }
    let mut out = Vec::new();
    walk(&[], tree, &mut out);
    out
}

fn segments(path: &str) -> Vec<String> {
    path.split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The parts of a group's inside, split at its own commas (not those of nested groups).
fn split_top(inside: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in inside.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inside[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inside[start..]);
    parts
}

/// The `crate::…`, `super::…` and `self::…` paths of a line of code (not `$crate::` of macros).
fn inline_paths(line: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(i) = line[from..].find(start).map(|i| i + from) {
            from = i + start.len();
            let before = i.checked_sub(1).map(|j| bytes[j]);
            if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b':') {
                continue;
            }
            let end = line[i..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .map_or(line.len(), |e| i + e);
            out.push(segments(&line[i..end]));
        }
    }
    out
}

/// A line without its comment and with its string literals emptied.
fn code_only(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push('"');
                while let Some(s) = chars.next() {
                    match s {
                        '\\' => _ = chars.next(),
                        '"' => break,
                        _ => {}
                    }
                }
                out.push('"');
            }
            '/' if chars.peek() == Some(&'/') => break,
            _ => out.push(c),
        }
    }
    out
}

/// The groups of modules that reach each other (Tarjan's algorithm), each of two or more.
fn strongly_connected(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'g> {
        graph: &'g BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'g Module, usize>,
        low: BTreeMap<&'g Module, usize>,
        stack: Vec<&'g Module>,
        on_stack: BTreeSet<&'g Module>,
        out: Vec<Vec<Module>>,
    }
    fn visit<'g>(v: &'g Module, s: &mut State<'g>) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(w, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(v, &mut s);
        }
    }
    s.out
}

/// One circle through the first module of `component`, ending where it starts: the shortest way
/// back found breadth-first.
fn cycle_in(graph: &BTreeMap<Module, BTreeSet<Module>>, component: &[Module]) -> Vec<Module> {
    let inside: BTreeSet<&Module> = component.iter().collect();
    let start = &component[0];
    let mut came_from: BTreeMap<&Module, &Module> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in graph.get(v).into_iter().flatten().filter(|w| inside.contains(w)) {
            if w == start {
                let mut path = vec![start.clone()];
                let mut at = v;
                while at != start {
                    path.push(at.clone());
                    at = came_from[at];
                }
                path.push(start.clone());
                path.reverse();
                return path;
            }
            if !came_from.contains_key(w) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    vec![start.clone(), start.clone()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(rel: &str, code: &str) -> Source {
        Source {
            module: module_of(rel),
            path: rel.to_owned(),
            code: code.to_owned(),
        }
    }

    fn names(circle: &[Edge]) -> Vec<String> {
        let mut out: Vec<String> = circle.iter().map(|e| e.from.join("::")).collect();
        out.push(circle.last().unwrap().to.join("::"));
        out
    }

    #[test]
    fn use_trees_are_expanded_into_each_path_they_name() {
        assert_eq!(
            expand("crate::a::{b, c::{d, e as f}, self}"),
            vec![
                vec!["crate", "a", "b"],
                vec!["crate", "a", "c", "d"],
                vec!["crate", "a", "c", "e"],
                vec!["crate", "a"],
            ]
        );
        assert_eq!(expand("super::x::*"), vec![vec!["super", "x"]]);
        let code =
            "use crate::a::{\n    b,\n    c,\n};\nfn f() { crate::d::g(); let s = \"crate::no\"; } // crate::no\n";
        let found: Vec<(usize, String)> = paths(code).into_iter().map(|(l, p)| (l, p.join("::"))).collect();
        assert_eq!(
            found,
            vec![
                (1, "crate::a::b".to_owned()),
                (1, "crate::a::c".to_owned()),
                (5, "crate::d::g".to_owned())
            ],
            "a use over several lines, and a path in code; none in a string or a comment"
        );
    }

    #[test]
    fn a_circle_between_two_modules_of_one_level_is_found_with_the_lines_that_make_it() {
        let sources = [
            source(
                "lib.rs",
                "pub mod receipts;\npub mod dispatch;\npub use dispatch::Queue;\n",
            ),
            source("receipts/mod.rs", "pub mod exceptions;\n"),
            source("receipts/exceptions.rs", "use crate::dispatch::queue::retry;\n"),
            source("dispatch/mod.rs", "pub mod queue;\n"),
            source(
                "dispatch/queue.rs",
                "fn f() {\n    crate::receipts::exceptions::open();\n}\n",
            ),
        ];
        let found = circles(&sources);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(names(&found[0]), ["dispatch", "receipts", "dispatch"]);
        assert_eq!(
            found[0][0].because,
            "dispatch/queue.rs:2 uses crate::receipts::exceptions::open"
        );
        assert_eq!(
            found[0][1].because,
            "receipts/exceptions.rs:1 uses crate::dispatch::queue::retry"
        );
    }

    #[test]
    fn a_circle_inside_a_module_is_found_at_its_own_level() {
        let sources = [
            source("dispatch/mod.rs", "mod lanes;\nmod worker;\n"),
            source("dispatch/lanes.rs", "use super::worker::send;\n"),
            source("dispatch/worker.rs", "use super::lanes;\nfn f() { lanes::run(); }\n"),
        ];
        let found = circles(&sources);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            names(&found[0]),
            ["dispatch::lanes", "dispatch::worker", "dispatch::lanes"]
        );
    }

    #[test]
    fn the_picture_of_a_level_keeps_only_the_edges_no_longer_way_implies() {
        let sources = [
            source("lib.rs", ""),
            source("a.rs", "use crate::b::x;\nuse crate::c::y;\n"),
            source("b.rs", "use crate::c::y;\n"),
            source("c/mod.rs", "mod d;\n"),
            source("c/d.rs", "use super::super::e::z;\n"),
            source("e.rs", ""),
        ];
        let edges = edges_among_children(&sources, &[]);
        let pairs = |set: &BTreeSet<(String, String)>| -> Vec<String> {
            set.iter().map(|(a, b)| format!("{a}->{b}")).collect()
        };
        assert_eq!(pairs(&edges), ["a->b", "a->c", "b->c", "c->e"], "c::d's use is c's");
        assert_eq!(
            pairs(&without_implied(&edges)),
            ["a->b", "b->c", "c->e"],
            "a->c is implied by a->b->c"
        );
    }

    #[test]
    fn a_parent_and_its_children_and_layered_siblings_make_no_circle() {
        let sources = [
            source("lib.rs", "pub mod queue;\npub mod decisions;\npub use queue::Next;\n"),
            source(
                "queue.rs",
                "mod hold;\nmod results;\npub use results::record;\nstruct Shared;\n",
            ),
            source("queue/hold.rs", "use super::Shared;\n"),
            source(
                "queue/results.rs",
                "use super::hold::hold;\nuse crate::queue::Shared;\n",
            ),
            source(
                "decisions.rs",
                "use crate::queue::{self, record};\nuse std::sync::Arc;\n",
            ),
        ];
        assert_eq!(circles(&sources), Vec::<Vec<Edge>>::new());
    }
}
