//! The manual: an mdBook whose sources are docs/ (docs/book.toml, docs/SUMMARY.md), beside a short
//! README. `cargo xtask manual` builds it and checks it; so does a step of `cargo xtask test`.
//!
//! mdBook fails on a page SUMMARY.md lists that is missing (`create-missing = false`). What it does
//! not check is checked here, with no network: every relative link and picture of the manual and
//! the README points to a file that exists, every `#anchor` to a heading of its page, every page in
//! docs/ is listed in SUMMARY.md, and every web address is well formed (none is fetched).

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use crate::cmd::{run, target_dir, Cmd};
use crate::setup;

/// The manual's sources, from the repository's root.
pub const DOCS: &str = "docs";

/// Builds the manual, checks it, and says where it is.
pub fn run_all(root: &Path) -> Result<(), String> {
    setup::mdbook()?;
    let out = build(root)?;
    check(root)?;
    eprintln!("xtask: the manual is at {}", out.join("index.html").display());
    Ok(())
}

/// `mdbook build docs` into target/manual (under CARGO_TARGET_DIR when set); returns that folder.
pub fn build(root: &Path) -> Result<PathBuf, String> {
    let out = target_dir(root).join("manual");
    let mdbook = setup::cargo_bin("mdbook");
    let program = if mdbook.exists() {
        mdbook
    } else {
        PathBuf::from("mdbook")
    };
    run(Cmd::new(program).arg("build").arg(root.join(DOCS)).arg("-d").arg(&out))?;
    Ok(out)
}

/// Checks the links, pictures and pages of the manual and the README.
pub fn check(root: &Path) -> Result<(), String> {
    let problems = problems(root)?;
    let pages = markdown_files(&root.join(DOCS))?.len();
    if problems.is_empty() {
        eprintln!("xtask: manual: {pages} pages and the README, every link, picture and anchor found");
        return Ok(());
    }
    for p in &problems {
        eprintln!("xtask: manual: {p}");
    }
    Err(format!("{} problem(s) in the manual's links and pages", problems.len()))
}

/// Everything wrong with the links and pages under `root`, each said in a sentence.
fn problems(root: &Path) -> Result<Vec<String>, String> {
    let docs = root.join(DOCS);
    let pages = markdown_files(&docs)?;
    let mut files: Vec<PathBuf> = pages.clone();
    if root.join("README.md").exists() {
        files.push(root.join("README.md"));
    }
    let mut problems = Vec::new();
    for file in &files {
        let text = read(file)?;
        for link in links(&text) {
            if let Some(p) = broken(root, file, &link) {
                problems.push(format!("{}:{}: {p}", shown(root, file), link.line));
            }
        }
    }
    problems.extend(orphans(root, &pages)?);
    problems.extend(unmapped(root)?);
    Ok(problems)
}

/// The manual's pages (as SUMMARY.md lists them) that the README does not link to: its map of the
/// manual is where a newcomer looks first.
fn unmapped(root: &Path) -> Result<Vec<String>, String> {
    let readme = root.join("README.md");
    if !readme.exists() {
        return Ok(Vec::new());
    }
    let targets = |file: &Path, text: &str| -> BTreeSet<PathBuf> {
        links(text)
            .iter()
            .filter(|l| !is_external(&l.target))
            .map(|l| {
                normalise(
                    &file
                        .parent()
                        .unwrap_or(root)
                        .join(l.target.split('#').next().unwrap_or("")),
                )
            })
            .collect()
    };
    let summary = root.join(DOCS).join("SUMMARY.md");
    let mapped = targets(&readme, &read(&readme)?);
    Ok(targets(&summary, &read(&summary)?)
        .into_iter()
        .filter(|page| !mapped.contains(page))
        .map(|page| {
            format!(
                "README.md does not link to {}: add it to the README's map of the manual",
                shown(root, &page)
            )
        })
        .collect())
}

/// The names of the files in `dir` (from the root) that the manual or the README shows or links to.
pub fn pictures_shown(root: &Path, dir: &str) -> Result<BTreeSet<String>, String> {
    let dir = normalise(&root.join(dir));
    let mut files = markdown_files(&root.join(DOCS))?;
    files.push(root.join("README.md"));
    let mut out = BTreeSet::new();
    for file in files.iter().filter(|f| f.exists()) {
        for link in links(&read(file)?) {
            let path = link.target.split('#').next().unwrap_or("");
            if path.is_empty() || is_external(path) {
                continue;
            }
            let target = normalise(&file.parent().unwrap_or(root).join(path));
            if target.parent() == Some(dir.as_path()) {
                out.extend(target.file_name().map(|n| n.to_string_lossy().into_owned()));
            }
        }
    }
    Ok(out)
}

/// The pages in docs/ that SUMMARY.md does not list: mdBook would leave them out of the manual.
fn orphans(root: &Path, pages: &[PathBuf]) -> Result<Vec<String>, String> {
    let docs = root.join(DOCS);
    let summary = docs.join("SUMMARY.md");
    let text = read(&summary)?;
    let listed: BTreeSet<PathBuf> = links(&text)
        .iter()
        .filter(|l| !is_external(&l.target))
        .map(|l| normalise(&docs.join(l.target.split('#').next().unwrap_or(""))))
        .collect();
    Ok(pages
        .iter()
        .filter(|p| **p != summary && !listed.contains(&normalise(p)))
        .map(|p| {
            format!(
                "{} is not listed in {}: add it, or remove the page",
                shown(root, p),
                shown(root, &summary)
            )
        })
        .collect())
}

/// What is wrong with one link, if anything.
fn broken(root: &Path, from: &Path, link: &Link) -> Option<String> {
    let target = link.target.as_str();
    if target.is_empty() {
        return Some("a link without a target".into());
    }
    if is_external(target) {
        return (!well_formed_url(target)).then(|| format!("`{target}` is not a well-formed web address"));
    }
    if target.contains(':') && !target.starts_with('#') && target.split(':').next().is_some_and(is_scheme) {
        return None; // mailto: and the like: nothing to check here.
    }
    let (path, anchor) = match target.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (target, None),
    };
    let file = if path.is_empty() {
        from.to_path_buf()
    } else {
        normalise(&from.parent().unwrap_or(root).join(path))
    };
    if !file.exists() {
        return Some(format!(
            "`{target}` points to {}, which does not exist",
            shown(root, &file)
        ));
    }
    let docs = normalise(&root.join(DOCS));
    if normalise(from).starts_with(&docs) && !file.starts_with(&docs) {
        return Some(format!(
            "`{target}` leaves {DOCS}/, which is all the manual publishes: link inside {DOCS}/, or name the file as code"
        ));
    }
    let anchor = anchor?;
    if file.extension().and_then(|e| e.to_str()) != Some("md") {
        return Some(format!("`{target}`: an anchor into a file that is not a page"));
    }
    let headings = read(&file).map(|t| anchors(&t)).unwrap_or_default();
    (!headings.contains(anchor)).then(|| format!("`{target}`: {} has no heading `#{anchor}`", shown(root, &file)))
}

/// A link or picture found in a page, with its line.
#[derive(Debug, PartialEq)]
struct Link {
    target: String,
    line: usize,
}

/// The links, pictures and link definitions of a Markdown text, outside code.
fn links(text: &str) -> Vec<Link> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for (i, raw) in text.lines().enumerate() {
        let trimmed = raw.trim_start();
        if let Some(f) = fence {
            if trimmed.starts_with(f) {
                fence = None;
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
            continue;
        }
        let line = without_code(raw);
        let mut found = inline_targets(&line);
        if let Some(t) = definition(&line) {
            found.push(t);
        }
        for target in found {
            out.push(Link { target, line: i + 1 });
        }
    }
    out
}

/// `](target)` and `<https://…>` in a line whose code spans were removed.
fn inline_targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let mut depth = 0usize;
        let mut end = after.len();
        for (j, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = j;
                    break;
                }
                ')' => depth -= 1,
                _ => {}
            }
        }
        let inside = after[..end].trim();
        // A title may follow the target: `(page.md "Title")`; any other space is in the target.
        let target = match inside.split_once(char::is_whitespace) {
            Some((t, title)) if title.trim_start().starts_with(['"', '\'', '(']) => t,
            _ => inside,
        };
        out.push(target.trim_start_matches('<').trim_end_matches('>').to_owned());
        rest = &after[end.min(after.len())..];
    }
    let mut rest = line;
    while let Some(at) = rest.find("<http") {
        let after = &rest[at + 1..];
        let Some(end) = after.find('>') else { break };
        out.push(after[..end].to_owned());
        rest = &after[end..];
    }
    out
}

/// The target of a link definition line, `[label]: target`.
fn definition(line: &str) -> Option<String> {
    let t = line.trim_start();
    if line.len() - t.len() > 3 || !t.starts_with('[') || t.starts_with("[^") {
        return None;
    }
    let (_, after) = t.split_once("]:")?;
    after
        .split_whitespace()
        .next()
        .map(|s| s.trim_start_matches('<').trim_end_matches('>').to_owned())
}

/// The line with its code spans (`…`, ``…``) removed.
fn without_code(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|c| **c == '`').count();
        let mut j = i + run;
        let mut closed = None;
        while j < chars.len() {
            let n = chars[j..].iter().take_while(|c| **c == '`').count();
            if n == run {
                closed = Some(j + n);
                break;
            }
            j += n.max(1);
        }
        match closed {
            Some(end) => i = end,
            None => {
                out.extend(&chars[i..i + run]);
                i += run;
            }
        }
    }
    out
}

/// The anchors of a page's headings, as mdBook and GitHub make them: lower case, spaces as
/// hyphens, punctuation but `-` and `_` dropped, and `-1`, `-2` … after a repeated one.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_fence = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        let hashes = t.chars().take_while(|c| *c == '#').count();
        if in_fence || !(1..=6).contains(&hashes) || !t[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(t[hashes..].trim().trim_end_matches('#').trim());
        let mut id = base.clone();
        let mut n = 0;
        while out.contains(&id) {
            n += 1;
            id = format!("{base}-{n}");
        }
        out.insert(id);
    }
    out
}

/// A heading's anchor.
fn slug(heading: &str) -> String {
    // Link text stays, its target goes: `[Text](x.md)` reads "Text".
    let mut text = String::new();
    let mut rest = heading;
    while let Some(at) = rest.find("](") {
        text.push_str(&rest[..at]);
        rest = rest[at..].find(')').map_or("", |end| &rest[at + end + 1..]);
    }
    text.push_str(rest);
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().collect::<String>())
            } else if c.is_whitespace() {
                Some("-".into())
            } else {
                None
            }
        })
        .collect()
}

fn is_external(target: &str) -> bool {
    target.starts_with("http://") || target.starts_with("https://")
}

fn is_scheme(s: &str) -> bool {
    s.len() > 1 && s.chars().all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
}

/// `http(s)://host[:port][/…]` with a plausible host and nothing that cannot be in an address.
fn well_formed_url(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://")) else {
        return false;
    };
    let host_port = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = host_port.rsplit_once(':').map_or(host_port, |(h, port)| {
        if port.chars().all(|c| c.is_ascii_digit()) && !port.is_empty() {
            h
        } else {
            host_port
        }
    });
    let host_ok = !host.is_empty()
        && host.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        && !host.starts_with(['.', '-'])
        && !host.ends_with(['.', '-'])
        && !host.contains("..");
    host_ok
        && !url
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "<>\"`{}|\\^".contains(c))
}

/// Every Markdown file under `dir`, sorted.
fn markdown_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    crate::tree::files_under(dir, "md", &[])
}

/// `a/b/../c` as `a/c`, without asking the file system (the file may not exist).
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// A path as the repository names it.
fn shown(root: &Path, path: &Path) -> String {
    normalise(path)
        .strip_prefix(normalise(root))
        .unwrap_or(path)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repository with a small manual, in a folder of its own; removed when dropped.
    struct Scene(PathBuf);

    impl Scene {
        fn new(name: &str) -> Scene {
            let dir = std::env::temp_dir().join(format!("xtask-manual-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            for (path, text) in [
                ("README.md", "# x\n\nSee [the intro](docs/intro.md), [the guide](docs/guide/start.md#first-steps) and ![a](docs/shot.png).\n"),
                ("docs/SUMMARY.md", "# Summary\n\n- [Intro](intro.md)\n- [Start](guide/start.md)\n"),
                ("docs/intro.md", "# Intro\n\nGo to [the start](guide/start.md) or [below](#more-to-read).\n\n## More to read\n\n[mdBook](https://rust-lang.github.io/mdBook/)\n"),
                ("docs/guide/start.md", "# Start\n\n## First steps\n\n![shot](../shot.png) back to [intro](../intro.md#intro).\n\n```sh\necho '[not a link](nowhere.md)'\n```\n\nAnd `[code](nowhere.md)` is code.\n"),
                ("docs/shot.png", "png"),
            ] {
                let p = dir.join(path);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, text).unwrap();
            }
            Scene(dir)
        }
        fn write(&self, path: &str, text: &str) {
            std::fs::write(self.0.join(path), text).unwrap();
        }
        fn problems(&self) -> Vec<String> {
            problems(&self.0).unwrap()
        }
    }

    impl Drop for Scene {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_sound_manual_has_no_problem() {
        let scene = Scene::new("sound");
        assert_eq!(scene.problems(), Vec::<String>::new(), "links in code are not links");
    }

    #[test]
    fn a_link_to_a_missing_page_is_found() {
        let scene = Scene::new("link");
        scene.write("docs/intro.md", "# Intro\n\nSee [the end](guide/end.md).\n");
        let problems = scene.problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("docs/intro.md:3: `guide/end.md` points to docs/guide/end.md"),
            "{problems:?}"
        );
    }

    #[test]
    fn a_missing_picture_is_found() {
        let scene = Scene::new("picture");
        std::fs::remove_file(scene.0.join("docs/shot.png")).unwrap();
        let problems = scene.problems();
        assert_eq!(problems.len(), 2, "the README and the page show it: {problems:?}");
    }

    #[test]
    fn an_anchor_without_its_heading_is_found() {
        let scene = Scene::new("anchor");
        scene.write(
            "README.md",
            "# x\n\n[intro](docs/intro.md) [start](docs/guide/start.md#last-steps)\n",
        );
        let problems = scene.problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("has no heading `#last-steps`"), "{problems:?}");
    }

    #[test]
    fn a_page_missing_from_the_summary_is_found() {
        let scene = Scene::new("orphan");
        scene.write("docs/guide/extra.md", "# Extra\n");
        let problems = scene.problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("docs/guide/extra.md is not listed in docs/SUMMARY.md"),
            "{problems:?}"
        );
    }

    #[test]
    fn a_page_the_readme_does_not_link_to_is_found() {
        let scene = Scene::new("unmapped");
        scene.write(
            "README.md",
            "# x\n\nSee [the guide](docs/guide/start.md#first-steps).\n",
        );
        let problems = scene.problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("README.md does not link to docs/intro.md"),
            "{problems:?}"
        );
    }

    #[test]
    fn a_malformed_web_address_is_found_and_none_is_fetched() {
        let scene = Scene::new("url");
        scene.write("docs/intro.md", "# Intro\n\n[a](https://exa mple.org) [b](https://) [c](http://localhost:8470/api) <https://ok.example/x>\n");
        let problems = scene.problems();
        assert_eq!(problems.len(), 2, "{problems:?}");
    }

    #[test]
    fn a_page_may_not_link_outside_the_manual() {
        let scene = Scene::new("outside");
        scene.write("docs/intro.md", "# Intro\n\n[readme](../README.md)\n");
        let problems = scene.problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("leaves docs/"), "{problems:?}");
    }

    #[test]
    fn the_pictures_shown_are_named_from_every_page_and_the_readme() {
        let scene = Scene::new("shown");
        let shown: Vec<String> = pictures_shown(&scene.0, "docs").unwrap().into_iter().collect();
        assert_eq!(
            shown,
            ["intro.md", "shot.png"],
            "pages link to docs/intro.md and show docs/shot.png"
        );
    }

    #[test]
    fn anchors_are_made_as_mdbook_and_github_make_them() {
        let page = "# The `[smtp]` section\n## Who may call?\n## Who may call?\n### `submit_message`\n## An office server: `smsdesk.service`\n";
        let found: Vec<String> = anchors(page).into_iter().collect();
        assert_eq!(
            found,
            [
                "an-office-server-smsdeskservice",
                "submit_message",
                "the-smtp-section",
                "who-may-call",
                "who-may-call-1"
            ]
        );
    }
}
