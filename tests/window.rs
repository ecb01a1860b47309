//! End-to-end: the real desktop window under a virtual X display (Xvfb). The window must load the
//! UI built into the binary, reach the engine over IPC, and paint something a person can read.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::Running;

/// An Xvfb server on a display number nobody else uses; killed on drop.
struct VirtualDisplay {
    child: Child,
    display: String,
}

impl VirtualDisplay {
    fn start() -> VirtualDisplay {
        for n in 90..190 {
            if Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() || Path::new(&format!("/tmp/.X{n}-lock")).exists() {
                continue;
            }
            let display = format!(":{n}");
            let child = Command::new("Xvfb")
                .args([display.as_str(), "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("Xvfb is installed (cargo xtask setup installs it)");
            let mut vd = VirtualDisplay { child, display };
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(10) {
                if Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() {
                    return vd;
                }
                if vd.child.try_wait().unwrap().is_some() {
                    break; // lost a race for this number; try the next
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = vd.child.kill();
        }
        panic!("could not start Xvfb on any display");
    }
}

impl Drop for VirtualDisplay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_for_log(r: &Running, needle: &str, limit: Duration) {
    let started = Instant::now();
    while !r.stderr().contains(needle) {
        assert!(
            started.elapsed() < limit,
            "the window never logged `{needle}`:\n{}",
            r.stderr()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn screenshot(display: &str, to: &Path) {
    let out = Command::new("import")
        .args(["-display", display, "-window", "root"])
        .arg(to)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "screenshot failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn distinct_colours(png: &Path) -> u64 {
    let out = Command::new("identify")
        .args(["-format", "%k"])
        .arg(png)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap_or(0)
}

#[test]
fn the_desktop_window_renders_the_ui_and_reaches_the_engine() {
    let x = VirtualDisplay::start();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let mut r = support::start(
        &dir,
        &[],
        &[("DISPLAY", x.display.as_str()), ("SMSDESK_HTTP_PORT", "0")],
    );

    // The UI's first IPC call is answered by the engine and logged: the webview loaded the embedded
    // UI, ran it, and the command reached the engine.
    wait_for_log(&r, "window UI connected", Duration::from_secs(60));

    let shots = std::env::var_os("SMSDESK_SCREENSHOT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| tmp.path().to_owned());
    std::fs::create_dir_all(&shots).unwrap();
    let png = shots.join("window.png");
    // The page paints its data some time after its first call, longer on a busy machine: look
    // again each second, for up to 30 s, until it shows more than a blank window would.
    let deadline = Instant::now() + Duration::from_secs(30);
    let colours = loop {
        std::thread::sleep(Duration::from_secs(1));
        screenshot(&x.display, &png);
        let colours = distinct_colours(&png);
        if colours > 64 || Instant::now() > deadline {
            break colours;
        }
    };
    assert!(
        colours > 64,
        "the window must paint a real UI (text, colours), found {colours} colours in {}",
        png.display()
    );

    r.signal("TERM");
    let status = r.wait(Duration::from_secs(20));
    assert!(
        status.success(),
        "the window must close cleanly on SIGTERM, got {status}:\n{}",
        r.stderr()
    );
    assert!(
        r.stderr().contains("engine stopped"),
        "the engine must shut down with the window:\n{}",
        r.stderr()
    );
}
