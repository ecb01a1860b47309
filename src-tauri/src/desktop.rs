//! What the window asks of the desktop: the tray's status line and desktop notifications. The UI
//! decides when and in which words (ui/src/desktop/desktop.ts); these commands only show them.
//! Listed in build.rs (`OWN_COMMANDS`) and granted in capabilities/default.json; the engine's operations
//! are granted from the catalogue, in capabilities/operations.json.

use std::time::Duration;

use tauri::{AppHandle, Runtime};

/// Longer texts are cut: a tooltip or a notification is one glance, not a report.
const MAX_TITLE: usize = 120;
const MAX_BODY: usize = 400;

fn cut(text: &str, max: usize) -> String {
    let line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if line.chars().count() <= max {
        return line;
    }
    let mut short: String = line.chars().take(max - 1).collect();
    short.push('…');
    short
}

#[tauri::command]
pub fn desktop_status<R: Runtime>(
    app: AppHandle<R>,
    tooltip: String,
    summary: String,
    open: Option<String>,
    quit: Option<String>,
) {
    crate::tray::set_status(&app, &cut(&tooltip, MAX_BODY), &cut(&summary, MAX_TITLE));
    // The menu's own words, in the operator's language (English until the UI has said them).
    if let (Some(open), Some(quit)) = (open, quit) {
        crate::tray::set_labels(&app, &cut(&open, MAX_TITLE), &cut(&quit, MAX_TITLE));
    }
}

/// Shows a desktop notification. A desktop without a notification service still gets the line in
/// the log, which is where an operator looks afterwards anyway. The call goes out on a thread of
/// its own: a bus that is slow to answer must not hold the window.
#[tauri::command]
pub fn notify(title: String, body: String) {
    let (title, body) = (cut(&title, MAX_TITLE), cut(&body, MAX_BODY));
    tracing::info!(%title, %body, "desktop notification");
    std::thread::spawn(move || {
        if let Err(e) = show(&title, &body) {
            tracing::warn!(error = %e, %title, "the desktop did not show the notification");
        }
    });
}

/// How long the notification service may take to answer.
const BUS_TIMEOUT: Duration = Duration::from_secs(5);

/// `Notify` of the freedesktop.org Desktop Notifications interface, on the session bus: a new
/// notification (replacing none), no actions or hints, shown for as long as the desktop decides.
/// Answers the id the service gave it.
fn show(title: &str, body: &str) -> Result<u32, dbus::Error> {
    show_on(&dbus::blocking::Connection::new_session()?, title, body)
}

fn show_on(bus: &dbus::blocking::Connection, title: &str, body: &str) -> Result<u32, dbus::Error> {
    let service = bus.with_proxy(
        "org.freedesktop.Notifications",
        "/org/freedesktop/Notifications",
        BUS_TIMEOUT,
    );
    let (app, replaces, icon, actions, expire) = ("smsdesk", 0u32, "smsdesk", Vec::<String>::new(), -1i32);
    let hints = dbus::arg::PropMap::new();
    let (id,): (u32,) = service.method_call(
        "org.freedesktop.Notifications",
        "Notify",
        (app, replaces, icon, title, body, actions, hints, expire),
    )?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    use std::sync::mpsc;

    use dbus::blocking::Connection;
    use dbus::channel::{Channel, MatchingReceiver, Sender};
    use dbus::message::MatchRule;

    use super::{cut, show_on};

    /// What a notification service is sent by `Notify`: app, replaces, icon, summary, body,
    /// actions, hints, expiry.
    type Notify = (
        String,
        u32,
        String,
        String,
        String,
        Vec<String>,
        dbus::arg::PropMap,
        i32,
    );

    fn connect(address: &str) -> Connection {
        let mut channel = Channel::open_private(address).expect("the test bus is reachable");
        channel.register().expect("registered on the test bus");
        Connection::from(channel)
    }

    #[test]
    fn a_notification_is_said_to_the_desktops_notification_service() {
        // A session bus of our own (dbus-daemon, which cargo xtask setup installs).
        let mut daemon = Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--print-address"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("dbus-daemon runs");
        let mut address = String::new();
        BufReader::new(daemon.stdout.take().unwrap())
            .read_line(&mut address)
            .unwrap();
        let address = address.trim().to_owned();

        // The notification service: owns its well-known name and answers Notify with id 42.
        let service = connect(&address);
        service
            .request_name("org.freedesktop.Notifications", false, true, true)
            .expect("the name is ours on a bus of our own");
        let (seen, heard) = mpsc::channel::<(String, String, String, Notify)>();
        service.start_receive(
            MatchRule::new_method_call(),
            Box::new(move |call, conn| {
                let member = call.member().map(|m| m.to_string()).unwrap_or_default();
                let path = call.path().map(|p| p.to_string()).unwrap_or_default();
                let iface = call.interface().map(|i| i.to_string()).unwrap_or_default();
                if let Ok(args) = call.read_all::<Notify>() {
                    let _ = conn.send(call.method_return().append1(42u32));
                    let _ = seen.send((iface, path, member, args));
                }
                true
            }),
        );
        let client = std::thread::spawn(move || {
            show_on(
                &connect(&address),
                "Conflicting delivery receipts",
                "Message 7: delivered, then expired",
            )
        });
        let mut call = None;
        for _ in 0..100 {
            service.process(std::time::Duration::from_millis(100)).unwrap();
            if let Ok(c) = heard.try_recv() {
                call = Some(c);
                break;
            }
        }
        let (iface, path, member, args) = call.expect("the service was called within 10 s");
        let id = client.join().unwrap();
        assert_eq!(id.expect("the service answered"), 42, "the id the service gave");
        assert_eq!(
            (iface.as_str(), path.as_str(), member.as_str()),
            (
                "org.freedesktop.Notifications",
                "/org/freedesktop/Notifications",
                "Notify"
            )
        );
        let (app, replaces, _icon, summary, body, actions, _hints, expire) = args;
        assert_eq!(
            (app.as_str(), replaces, expire),
            ("smsdesk", 0, -1),
            "a new notification, timed by the desktop"
        );
        assert_eq!(summary, "Conflicting delivery receipts");
        assert_eq!(body, "Message 7: delivered, then expired");
        assert!(actions.is_empty(), "no buttons: the window is where decisions are made");
        let _ = daemon.kill();
        let _ = daemon.wait();
    }

    #[test]
    fn texts_are_kept_to_one_line_and_cut_with_an_ellipsis() {
        assert_eq!(cut("Link lost\nreset by peer", 50), "Link lost reset by peer");
        assert_eq!(cut("abcdef", 6), "abcdef");
        assert_eq!(cut("abcdefg", 6), "abcde…");
        assert_eq!(
            cut("связь потеряна", 7),
            "связь …",
            "cut by characters, never inside one"
        );
    }
}
