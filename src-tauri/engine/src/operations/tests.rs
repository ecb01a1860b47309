use std::collections::HashSet;

use super::*;

#[test]
fn each_operation_has_its_own_name_and_its_own_method_and_path() {
    let mut names = HashSet::new();
    let mut routes = HashSet::new();
    for spec in OPERATIONS {
        assert!(names.insert(spec.name), "{} is declared twice", spec.name);
        assert!(
            routes.insert((spec.method, spec.path)),
            "{} {} is taken by two operations",
            spec.method.as_str(),
            spec.path
        );
    }
}

#[test]
fn path_arguments_and_the_path_placeholders_are_the_same() {
    for spec in OPERATIONS {
        let placeholders: Vec<&str> = spec
            .path
            .split('/')
            .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
            .collect();
        let path_args: Vec<&str> = spec
            .args
            .iter()
            .filter(|a| a.place == Place::Path)
            .map(|a| a.name)
            .collect();
        assert_eq!(
            placeholders, path_args,
            "{}: every {{x}} is an argument and back",
            spec.name
        );
    }
}

#[test]
fn only_writes_take_a_body_and_a_read_answers_something() {
    for spec in OPERATIONS {
        let bodies = spec.args.iter().filter(|a| a.place == Place::Body).count();
        assert!(bodies <= 1, "{}: one body at most", spec.name);
        if spec.method == Method::Get {
            assert_eq!(bodies, 0, "{}: a GET carries no body", spec.name);
            assert!(spec.output.is_some(), "{}: a read answers something", spec.name);
        }
        assert_eq!(
            spec.output.is_none(),
            spec.status == 204,
            "{}: no answer is 204 No Content, and 204 has none",
            spec.name
        );
    }
}

#[test]
fn every_operation_may_be_refused_for_a_missing_credential_and_a_narrow_one() {
    for spec in OPERATIONS {
        let codes = spec.error_codes();
        assert!(codes.contains(&ErrorCode::Unauthorized), "{}", spec.name);
        assert_eq!(
            codes.contains(&ErrorCode::Forbidden),
            spec.access != Access::Any,
            "{}: 403 is for operations some credential may not call",
            spec.name
        );
        let unique: HashSet<_> = codes.iter().collect();
        assert_eq!(unique.len(), codes.len(), "{}: each code listed once", spec.name);
    }
}

#[test]
fn each_error_code_has_one_spelling_a_status_and_a_meaning() {
    let mut texts = HashSet::new();
    for code in ErrorCode::ALL {
        assert!(texts.insert(code.as_str()), "{code} spelled twice");
        assert!((400..600).contains(&code.status()), "{code}: an error status");
        assert!(!code.meaning().trim().is_empty(), "{code}: says what it means");
        let json = serde_json::to_string(code).unwrap();
        assert_eq!(json, format!("\"{}\"", code.as_str()), "the wire spells it as as_str");
    }
}

#[test]
fn the_window_has_every_operation_but_those_marked_otherwise() {
    macro_rules! names {
        ($($name:ident)+) => {
            vec![$(stringify!($name)),+]
        };
    }
    let window: Vec<&str> = with_window_operations!(names);
    let expected: Vec<&str> = OPERATIONS.iter().filter(|s| s.window).map(|s| s.name).collect();
    assert_eq!(window, expected);
    assert!(
        !window.contains(&"show_window"),
        "the window does not ask itself to come forward"
    );
    let all: Vec<&str> = with_operations!(names);
    assert_eq!(all.len(), OPERATIONS.len());
}
