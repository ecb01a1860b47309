use std::path::Path;

use crate::config::{from_sources, Config, IdBase, RouteInput, DEFAULT_ROUTE};
use crate::domain::MessageKind;

fn load(text: &str) -> Result<Config, String> {
    from_sources(Path::new("smsdesk.toml"), text, []).map_err(|e| e.to_string())
}

fn to<'a>(destination: &'a str, kind: MessageKind, api_key: Option<&'a str>) -> RouteInput<'a> {
    RouteInput {
        destination,
        country: None,
        kind,
        api_key,
    }
}

const TWO: &str = r#"
[connections.primary]
host = "smpp.example.com"
system_id = "office"
binds = 2
tps = 50

[connections.backup]
host = "backup.example.net"
port = 2776
response_id = "hex"
permanent_codes = "0x0b"

[connections.russia]
host = "ru.example.org"
enabled = false

[[routes]]
name = "codes in Russia"
prefixes = ["+7"]
kinds = "otp"
connections = ["russia", "primary"]

[[routes]]
name = "the shop"
api_keys = ["shop"]
connections = ["backup"]

[[routes]]
connections = ["primary", "backup"]
"#;

#[test]
fn an_earlier_single_smpp_section_is_the_one_connection_under_the_name_its_rows_carry() {
    let c = load("").unwrap();
    let list = c.connection_list();
    assert_eq!(list.len(), 1);
    assert_eq!((list[0].name.as_str(), list[0].enabled), ("sandbox", true));
    let provider = load("[smpp]\nsandbox = false\nhost = \"smsc.example.com\"\ntps = 40\n").unwrap();
    let list = provider.connection_list();
    assert_eq!(list[0].name, "smpp");
    assert_eq!(
        (list[0].smpp.host.as_str(), list[0].smpp.tps.0),
        ("smsc.example.com", 40)
    );
    let routes = provider.route_list();
    assert_eq!(routes.len(), 1);
    assert_eq!(routes[0].name, DEFAULT_ROUTE);
    assert_eq!(routes[0].connections, vec!["smpp".to_owned()]);
    assert!(routes[0].matches(&to("+33612345678", MessageKind::Bulk, None)));
}

#[test]
fn connections_and_routes_are_read_in_the_files_order_and_the_first_matching_route_wins() {
    let c = load(TWO).unwrap();
    let names: Vec<_> = c.connection_list().into_iter().map(|c| (c.name, c.enabled)).collect();
    assert_eq!(
        names,
        vec![
            ("primary".into(), true),
            ("backup".into(), true),
            ("russia".into(), false)
        ]
    );
    let route = |d, k, key| c.route_for(&to(d, k, key)).map(|r| r.name);
    assert_eq!(
        route("+79161234567", MessageKind::Otp, None).as_deref(),
        Some("codes in Russia")
    );
    assert_eq!(
        route("+79161234567", MessageKind::Bulk, Some("shop")).as_deref(),
        Some("the shop"),
        "a bulk message to +7 is not a code: the next route that matches"
    );
    assert_eq!(
        route("+33612345678", MessageKind::Bulk, Some("crm")).as_deref(),
        Some("route 3")
    );
    assert_eq!(
        c.route_list()[2].connections,
        vec!["primary".to_owned(), "backup".to_owned()]
    );
}

#[test]
fn a_connection_sees_its_own_link_id_rules_and_codes_over_the_sections_values() {
    let c = load(&format!("[receipts]\nid_ignore_case = true\n{TWO}")).unwrap();
    let primary = c.for_connection("primary").unwrap();
    assert_eq!(
        (primary.smpp.host.as_str(), primary.smpp.binds.0, primary.smpp.tps.0),
        ("smpp.example.com", 2, 50)
    );
    assert_eq!(primary.receipts.response_id, IdBase::Text);
    assert!(
        primary.receipts.id_ignore_case,
        "the section's value where the connection sets none"
    );
    let backup = c.for_connection("backup").unwrap();
    assert_eq!((backup.smpp.port, backup.receipts.response_id), (2776, IdBase::Hex));
    assert_eq!(backup.retry.permanent_codes.0, vec![0x0b]);
    assert_eq!(primary.retry.permanent_codes, Config::default().retry.permanent_codes);
    assert!(c.for_connection("nowhere").is_none());
}

#[test]
fn a_route_by_country_matches_the_destinations_country() {
    let c = load(&format!(
        "{TWO}\n[[routes]]\ncountries = \"fr\"\nconnections = \"backup\"\n"
    ))
    .unwrap();
    let route = c.routes.last().unwrap();
    let fr = RouteInput {
        country: Some("FR"),
        ..to("+33612345678", MessageKind::Bulk, None)
    };
    assert!(route.matches(&fr));
    assert!(!route.matches(&RouteInput {
        country: Some("BE"),
        ..fr
    }));
    assert!(!route.matches(&RouteInput { country: None, ..fr }));
}

#[test]
fn connections_no_route_names_are_told() {
    let c = load(&TWO.replace("[\"russia\", \"primary\"]", "[\"primary\"]")).unwrap();
    assert_eq!(c.unrouted_connections(), vec!["russia".to_owned()]);
    assert!(load(TWO).unwrap().unrouted_connections().is_empty());
    let no_routes = TWO.split("[[routes]]").next().unwrap();
    assert_eq!(
        load(no_routes).unwrap().route_list()[0].connections,
        vec!["primary".to_owned(), "backup".to_owned()],
        "no routes: every enabled connection in the file's order"
    );
}

#[test]
fn bad_connections_and_routes_are_refused_naming_the_key_and_the_reason() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "[connections.a]\nhost = \"x\"\n[[routes]]\nconnections = [\"b\"]\n",
            "routes[1].connections",
            "no connection `b`",
        ),
        (
            "[connections.a]\n[[routes]]\nconnections = [\"a\", \"a\"]\n",
            "routes[1].connections",
            "listed twice",
        ),
        (
            "[connections.a]\n[[routes]]\nconnections = []\n",
            "routes[1].connections",
            "at least one",
        ),
        (
            "[connections.a]\n[[routes]]\nprefixes = \"33\"\nconnections = \"a\"\n",
            "routes[1].prefixes",
            "international form",
        ),
        (
            "[connections.a]\n[[routes]]\nkinds = \"urgent\"\nconnections = \"a\"\n",
            "routes[1].kinds",
            "not a kind",
        ),
        (
            "[connections.a]\n[[routes]]\ncountries = \"XX\"\nconnections = \"a\"\n",
            "routes[1].countries",
            "not a country",
        ),
        (
            "[connections.a]\n[[routes]]\nvia = \"a\"\nconnections = \"a\"\n",
            "routes[1].via",
            "unknown setting",
        ),
        (
            "[connections.a]\nhots = \"x\"\n",
            "connections.a.hots",
            "a connection has: enabled, sandbox, host",
        ),
        ("[connections.a]\ntps = 0\n", "connections.a.tps", "at least 1"),
        (
            "[connections.a]\nresponse_id = \"octal\"\n",
            "connections.a.response_id",
            "octal",
        ),
        ("[connections.\"a b\"]\n", "connections.a b", "letters, digits"),
        (
            "[connections.a]\nsandbox = true\n[connections.b]\nsandbox = true\n",
            "connections",
            "only one connection may be the embedded sandbox",
        ),
        (
            "[connections.a]\nenabled = false\n",
            "connections",
            "every connection is disabled",
        ),
        (
            "[smpp]\nhost = \"x\"\n[connections.a]\n",
            "smpp",
            "set its keys in a [connections.<name>] table",
        ),
    ];
    for (text, key, reason) in cases {
        let err = load(text).expect_err(text);
        assert!(
            err.contains(&format!("`{key}`")) && err.contains(reason),
            "{text:?} must be refused at `{key}` with {reason:?}: {err}"
        );
    }
}

#[test]
fn an_smpp_variable_beside_connections_is_refused_not_ignored() {
    let err = from_sources(
        Path::new("smsdesk.toml"),
        "[connections.a]\n",
        [("SMSDESK_SMPP_HOST".to_owned(), "x".to_owned())],
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("`smpp`") && err.contains("SMSDESK_SMPP_"), "{err}");
}
