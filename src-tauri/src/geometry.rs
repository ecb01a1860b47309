//! The window's size and place, kept in the data directory (`window.json`) and given back at the
//! next start, unless the screen it was on is gone: a window restored off every monitor would be
//! a window the operator cannot reach.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tauri::{PhysicalPosition, PhysicalSize, Runtime, WebviewWindow, WindowEvent};

/// The file, in the data directory.
pub const FILE_NAME: &str = "window.json";
/// The smallest window the UI is laid out for (tauri.conf.json's minWidth/minHeight).
const MIN_WIDTH: u32 = 720;
const MIN_HEIGHT: u32 = 480;
/// How much of the window's top edge must be on a monitor for the title bar to be reachable.
const GRIP_WIDTH: i64 = 120;
const GRIP_HEIGHT: i64 = 40;
/// Moves and resizes come in bursts while the operator drags; the file is written once it settles.
const SETTLE: Duration = Duration::from_millis(400);

/// Where the window was, in physical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Geometry {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
    #[serde(default)]
    pub maximized: bool,
}

/// A monitor's area, in physical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Area {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

impl Area {
    fn overlap(&self, x: i64, y: i64, w: i64, h: i64) -> i64 {
        let (ax, ay) = (i64::from(self.x), i64::from(self.y));
        let (aw, ah) = (i64::from(self.width), i64::from(self.height));
        let dx = (ax + aw).min(x + w) - ax.max(x);
        let dy = (ay + ah).min(y + h) - ay.max(y);
        dx.max(0) * dy.max(0)
    }
}

/// The geometry to give back on these monitors: the saved one, its size kept within the largest
/// monitor and above the minimum; or nothing (the default place) if no monitor shows enough of
/// its top edge to grab it.
pub fn restore(saved: Geometry, monitors: &[Area]) -> Option<Geometry> {
    let grip_w = GRIP_WIDTH.min(i64::from(saved.width.max(1)));
    let reachable = monitors
        .iter()
        .any(|m| m.overlap(i64::from(saved.x), i64::from(saved.y), grip_w, GRIP_HEIGHT) >= grip_w * GRIP_HEIGHT / 2);
    if !reachable {
        return None;
    }
    let max_w = monitors.iter().map(|m| m.width).max().unwrap_or(saved.width);
    let max_h = monitors.iter().map(|m| m.height).max().unwrap_or(saved.height);
    Some(Geometry {
        width: saved.width.clamp(MIN_WIDTH, max_w.max(MIN_WIDTH)),
        height: saved.height.clamp(MIN_HEIGHT, max_h.max(MIN_HEIGHT)),
        ..saved
    })
}

/// What was saved, if anything readable was.
pub fn load(file: &Path) -> Option<Geometry> {
    let text = std::fs::read_to_string(file).ok()?;
    match serde_json::from_str(&text) {
        Ok(g) => Some(g),
        Err(e) => {
            tracing::warn!(file = %file.display(), error = %e, "window place not readable; using the default");
            None
        }
    }
}

/// Written whole or not at all (temporary file, then rename).
pub fn save(file: &Path, geometry: &Geometry) -> std::io::Result<()> {
    let tmp = file.with_extension("json.tmp");
    std::fs::write(&tmp, serde_json::to_vec_pretty(geometry)?)?;
    std::fs::rename(&tmp, file)
}

/// Puts the window where it was last time, then keeps `window.json` up to date as it moves.
pub fn keep<R: Runtime>(window: &WebviewWindow<R>, data_dir: &Path) {
    let file = data_dir.join(FILE_NAME);
    if let Some(saved) = load(&file) {
        let monitors: Vec<Area> = window
            .available_monitors()
            .unwrap_or_default()
            .iter()
            .map(|m| Area {
                x: m.position().x,
                y: m.position().y,
                width: m.size().width,
                height: m.size().height,
            })
            .collect();
        match restore(saved, &monitors) {
            Some(g) => apply(window, g),
            None => tracing::info!(
                ?saved,
                "the window's last place is on no monitor now; using the default"
            ),
        }
    }
    let pending: Arc<Mutex<Option<PathBuf>>> = Arc::new(Mutex::new(None));
    let w = window.clone();
    window.on_window_event(move |event| {
        if matches!(event, WindowEvent::Moved(_) | WindowEvent::Resized(_)) {
            let mut slot = pending.lock().unwrap_or_else(|p| p.into_inner());
            if slot.is_none() {
                *slot = Some(file.clone());
                let (w, pending) = (w.clone(), pending.clone());
                tauri::async_runtime::spawn(async move {
                    tokio::time::sleep(SETTLE).await;
                    let file = pending.lock().unwrap_or_else(|p| p.into_inner()).take();
                    if let Some((file, g)) = file.and_then(|f| current(&w, &f).map(|g| (f, g))) {
                        if let Err(e) = save(&file, &g) {
                            tracing::warn!(file = %file.display(), error = %e, "window place not saved");
                        }
                    }
                });
            }
        }
    });
}

fn apply<R: Runtime>(window: &WebviewWindow<R>, g: Geometry) {
    let _ = window.set_size(PhysicalSize::new(g.width, g.height));
    let _ = window.set_position(PhysicalPosition::new(g.x, g.y));
    if g.maximized {
        let _ = window.maximize();
    }
}

/// The window's geometry now. While maximized, the place and size saved before are kept with the
/// flag set, so that leaving the maximized state next time gives the operator's own size back.
/// Nothing while minimized.
fn current<R: Runtime>(window: &WebviewWindow<R>, file: &Path) -> Option<Geometry> {
    if window.is_minimized().unwrap_or(false) {
        return None;
    }
    let maximized = window.is_maximized().unwrap_or(false);
    let position = window.outer_position().ok()?;
    let size = window.inner_size().ok()?;
    let now = Geometry {
        x: position.x,
        y: position.y,
        width: size.width,
        height: size.height,
        maximized,
    };
    if maximized {
        return Some(load(file).map_or(now, |before| Geometry {
            maximized: true,
            ..before
        }));
    }
    Some(now)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCREEN: Area = Area {
        x: 0,
        y: 0,
        width: 1920,
        height: 1080,
    };

    fn at(x: i32, y: i32, width: u32, height: u32) -> Geometry {
        Geometry {
            x,
            y,
            width,
            height,
            maximized: false,
        }
    }

    #[test]
    fn a_place_on_a_present_monitor_is_given_back_as_it_was() {
        assert_eq!(
            restore(at(200, 100, 1000, 700), &[SCREEN]),
            Some(at(200, 100, 1000, 700))
        );
    }

    #[test]
    fn a_place_on_a_second_monitor_that_is_gone_falls_back_to_the_default() {
        let left_of_the_screen = at(-1500, 100, 1000, 700);
        assert_eq!(restore(left_of_the_screen, &[SCREEN]), None);
        let second = Area { x: -1920, ..SCREEN };
        assert_eq!(
            restore(left_of_the_screen, &[SCREEN, second]),
            Some(left_of_the_screen),
            "with the monitor back, the place is kept"
        );
    }

    #[test]
    fn a_window_whose_title_bar_is_off_screen_is_not_restored_there() {
        assert_eq!(
            restore(at(1880, 100, 1000, 700), &[SCREEN]),
            None,
            "only 40 px of it would show"
        );
        assert_eq!(
            restore(at(200, 1070, 1000, 700), &[SCREEN]),
            None,
            "only 10 px of its title bar would show, at the bottom"
        );
        assert_eq!(
            restore(at(200, -15, 1000, 700), &[SCREEN]).map(|g| g.y),
            Some(-15),
            "partly above, but most of its title bar shows"
        );
    }

    #[test]
    fn a_size_larger_than_any_monitor_or_below_the_minimum_is_brought_within_bounds() {
        assert_eq!(restore(at(0, 0, 4000, 3000), &[SCREEN]), Some(at(0, 0, 1920, 1080)));
        assert_eq!(
            restore(at(0, 0, 100, 50), &[SCREEN]),
            Some(at(0, 0, MIN_WIDTH, MIN_HEIGHT))
        );
    }

    #[test]
    fn without_monitor_information_nothing_is_restored() {
        assert_eq!(restore(at(0, 0, 1000, 700), &[]), None);
    }

    #[test]
    fn saved_geometry_reads_back_and_a_damaged_file_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(FILE_NAME);
        assert_eq!(load(&file), None, "no file yet");
        let g = Geometry {
            maximized: true,
            ..at(10, 20, 1100, 750)
        };
        save(&file, &g).unwrap();
        assert_eq!(load(&file), Some(g));
        std::fs::write(&file, "{\"x\": 1,").unwrap();
        assert_eq!(load(&file), None);
    }
}
