//! `cargo xtask service-test`: the .deb installed on a fresh Debian 12 booted with systemd in a
//! container (systemd-nspawn), and smsdesk.service run there as systemd runs it, with every
//! hardening setting of the unit: it starts, answers, reloads its config (a broken one changing
//! nothing), and stops cleanly, the write-ahead log emptied.
//!
//! Not part of the test command: the first run downloads a Debian base system (debootstrap, kept
//! under ~/.cache/smsdesk), and the container needs root and the kernel's namespaces.

use std::path::{Path, PathBuf};

use crate::app::build_app;
use crate::cmd::{run, Cmd};
use crate::package::{bundle, Profile};
use crate::setup;

/// What the container runs once booted: each check as a `name=value` line in /root/check.out.
const CHECK: &str = r#"#!/bin/bash
out=/root/check.out; : > $out
say() { echo "$1=$2" >> $out; }
for i in $(seq 1 200); do [ -f /var/lib/smsdesk/instance.json ] && break; sleep 0.3; done
say started "$(systemctl show smsdesk -p ActiveState --value) $(systemctl show smsdesk -p User --value)"
url=$(grep -o '"httpUrl": *"[^"]*"' /var/lib/smsdesk/instance.json | cut -d'"' -f4)
say health "$(curl -s $url/api/v1/health | grep -o '"status":"ok"')"
cp /etc/smsdesk/smsdesk.toml /root/good.toml
systemctl reload smsdesk; sleep 1
printf '\n[nonsense]\nx = 1\n' >> /etc/smsdesk/smsdesk.toml
systemctl reload smsdesk; sleep 1
cp /root/good.toml /etc/smsdesk/smsdesk.toml
say after_reloads "$(systemctl show smsdesk -p ActiveState --value) $(curl -s -o /dev/null -w '%{http_code}' $url/api/v1/health)"
systemctl stop smsdesk
say stopped "$(systemctl show smsdesk -p Result --value) $(systemctl show smsdesk -p ExecMainStatus --value)"
say wal_bytes "$(stat -c %s /var/lib/smsdesk/smsdesk.db-wal 2>/dev/null || echo none)"
say db_mode "$(stat -c '%U %a' /var/lib/smsdesk/smsdesk.db)"
journalctl --flush; sleep 1
journalctl -u smsdesk --no-pager -o cat > /root/journal.txt
say reloaded "$(grep -c 'SIGHUP: config re-read' /root/journal.txt)"
say refused "$(grep -c 'SIGHUP: the config was not re-read' /root/journal.txt)"
say setup_link "$(grep -c '/setup#' /root/journal.txt)"
systemctl poweroff
"#;

const CHECK_UNIT: &str = "[Unit]\nAfter=smsdesk.service\nWants=smsdesk.service\n\n[Service]\nType=oneshot\nExecStart=/root/check.sh\n\n[Install]\nWantedBy=multi-user.target\n";

/// What each check must have printed.
const EXPECTED: &[(&str, &str)] = &[
    ("started", "active smsdesk"),
    ("health", r#""status":"ok""#),
    ("after_reloads", "active 200"),
    ("stopped", "success 0"),
    ("wal_bytes", "0"),
    ("db_mode", "smsdesk 600"),
    ("reloaded", "1"),
    ("refused", "1"),
    ("setup_link", "0"),
];

pub fn run_test(root: &Path) -> Result<(), String> {
    setup::system_packages(&["systemd-container", "debootstrap"])?;
    let bin = build_app(root, false)?;
    let deb = bundle(root, &bin, Profile::Debug, &["deb"])?.remove(0);
    let base = base_system()?;
    let machine = base.with_file_name("service-test-run");
    let _ = std::fs::remove_dir_all(&machine);
    run(Cmd::new("cp").args(["-a", "--reflink=auto"]).arg(&base).arg(&machine))?;
    let result = check_in(&machine, &deb);
    let _ = std::fs::remove_dir_all(&machine);
    result
}

/// A Debian 12 with systemd, made once and kept.
fn base_system() -> Result<PathBuf, String> {
    let home = std::env::var_os("HOME").ok_or("HOME is not set")?;
    let base = Path::new(&home).join(".cache/smsdesk/service-test-debian12");
    if base.join("usr/lib/systemd/systemd").exists() {
        return Ok(base);
    }
    let partial = base.with_extension("partial");
    let _ = std::fs::remove_dir_all(&partial);
    run(Cmd::new("debootstrap")
        .args([
            "--variant=minbase",
            "--include=systemd,systemd-sysv,dbus,curl,ca-certificates",
        ])
        .args(["bookworm"])
        .arg(&partial)
        .arg("http://deb.debian.org/debian"))?;
    std::fs::rename(&partial, &base).map_err(|e| format!("cannot keep {}: {e}", base.display()))?;
    Ok(base)
}

/// systemd-nspawn on a machine folder, without a machine manager (this host's PID 1 is not systemd).
const NSPAWN: &[&str] = &["systemd-nspawn", "--quiet", "--keep-unit", "--register=no", "-D"];

fn nspawn(machine: &Path) -> Cmd {
    Cmd::new(NSPAWN[0]).args(&NSPAWN[1..]).arg(machine)
}

fn check_in(machine: &Path, deb: &Path) -> Result<(), String> {
    let inside = machine.join("root/smsdesk.deb");
    std::fs::copy(deb, &inside).map_err(|e| format!("cannot copy the package: {e}"))?;
    let write =
        |rel: &str, text: &str| std::fs::write(machine.join(rel), text).map_err(|e| format!("cannot write {rel}: {e}"));
    write("root/check.sh", CHECK)?;
    write("etc/systemd/system/smsdesk-check.service", CHECK_UNIT)?;
    run(Cmd::new("chmod").args(["755"]).arg(machine.join("root/check.sh")))?;
    run(nspawn(machine).args([
        "--pipe",
        "sh",
        "-c",
        "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
         /root/smsdesk.deb && systemctl enable smsdesk smsdesk-check",
    ]))?;
    eprintln!("xtask: booting the container (systemd); the check powers it off when done");
    run(Cmd::new("timeout").arg("300").args(NSPAWN).arg(machine).arg("-b"))?;
    let out = std::fs::read_to_string(machine.join("root/check.out")).map_err(|e| format!("no check output: {e}"))?;
    let journal = std::fs::read_to_string(machine.join("root/journal.txt")).unwrap_or_default();
    let mut failures = Vec::new();
    for (name, expected) in EXPECTED {
        let found = out
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .unwrap_or("(none)");
        eprintln!("xtask: service under systemd: {name}: {found}");
        if found != *expected {
            failures.push(format!("{name}: {found:?}, expected {expected:?}"));
        }
    }
    if failures.is_empty() {
        eprintln!(
            "xtask: smsdesk.service ran under systemd with its hardening: started, answered, reloaded, stopped cleanly"
        );
        Ok(())
    } else {
        Err(format!("{}\nthe service's journal:\n{journal}", failures.join("\n")))
    }
}
