use super::*;
use crate::config::AtLeastOne;

const MIN: i64 = 60_000;
const DAY_MS: i64 = 24 * 60 * MIN;
/// A minute boundary, as the activity totals' buckets fall.
const T0: i64 = 1_800_000_000_000 - 1_800_000_000_000 % MIN;

fn smpp(sandbox: bool, window: u32, tps: u32) -> SmppSettings {
    SmppSettings {
        sandbox,
        window: AtLeastOne(window),
        tps: AtLeastOne(tps),
        ..SmppSettings::default()
    }
}

#[test]
fn the_sandbox_runs_at_its_own_limits_whatever_the_providers_are() {
    for (window, tps) in [(10, 10), (1, 1), (500, 5_000)] {
        assert_eq!(
            sending_limits(&smpp(true, window, tps)),
            SendingLimits {
                connection: PaceConnection::Sandbox,
                window: SANDBOX_WINDOW,
                binds: 1,
                tps: SANDBOX_TPS,
            },
            "smpp.window {window} and smpp.tps {tps} are the provider's"
        );
    }
}

#[test]
fn a_provider_is_sent_to_at_the_accounts_limits() {
    assert_eq!(
        sending_limits(&smpp(false, 3, 25)),
        SendingLimits {
            connection: PaceConnection::Provider,
            window: 3,
            binds: 1,
            tps: 25,
        }
    );
    let defaults = sending_limits(&SmppSettings {
        sandbox: false,
        ..SmppSettings::default()
    });
    assert_eq!(
        (defaults.window, defaults.tps),
        (10, 10),
        "the conservative defaults stay"
    );
}

#[test]
fn the_sandbox_is_the_default_connection_and_is_not_held_to_ten_a_second() {
    let limits = sending_limits(&SmppSettings::default());
    assert_eq!(limits.connection, PaceConnection::Sandbox);
    assert!(limits.tps >= 100 * 10 && limits.window > 10, "{limits:?}");
}

#[test]
fn the_rate_is_measured_over_the_last_minute() {
    // Steady at 10/s: 600 in the previous minute, 300 in the first half of this one.
    assert_eq!(measured_rate(600, 300, T0 + 30_000), 10.0);
    // Idle.
    assert_eq!(measured_rate(0, 0, T0 + 30_000), 0.0);
    // Sending stopped during the previous minute, which saw 200 accepted: 40 s into this one, a
    // third of that minute is within the last 60 s, and counts pro rata.
    let stopped = measured_rate(200, 0, T0 + 40_000);
    assert!((stopped - 200.0 / 3.0 / 60.0).abs() < 1e-9, "{stopped}");
}

#[test]
fn a_campaign_that_began_this_minute_is_measured_since_the_minute_began() {
    // 150 accepted in the first 15 s of sending, nothing before: 10/s, not 2.5/s.
    assert_eq!(measured_rate(0, 150, T0 + 15_000), 10.0);
    // At the very start of a minute, one second at least.
    assert_eq!(measured_rate(0, 3, T0 + 200), 3.0);
}

#[test]
fn the_time_left_follows_the_measured_rate_and_never_beats_the_limit() {
    assert_eq!(eta_seconds(0, 10.0, 10), 0, "nothing waits");
    assert_eq!(
        eta_seconds(20_000, 0.0, 10),
        2_000,
        "at the limit before sending starts: 33 min"
    );
    assert_eq!(eta_seconds(4_738, 10.0, 10), 474);
    assert_eq!(eta_seconds(4_738, 5.0, 10), 948, "the measured rate while sending");
    assert_eq!(
        eta_seconds(1_000, 50.0, 10),
        100,
        "a rate measured before the limit was lowered does not count"
    );
    assert_eq!(
        eta_seconds(20_000, 0.0, SANDBOX_TPS),
        20,
        "the sandbox's first campaign"
    );
}

#[test]
fn a_pace_puts_the_limits_the_counts_and_the_time_left_together() {
    let counts = PaceCounts {
        due: 4_738,
        scheduled: 3,
        next_scheduled_at_ms: Some(T0 + DAY_MS),
        accepted_previous_minute: 600,
        accepted_this_minute: 300,
    };
    let p = Pace::new(T0 + 30_000, sending_limits(&smpp(false, 10, 10)), counts);
    assert_eq!(
        p,
        Pace {
            at_ms: T0 + 30_000,
            connection: PaceConnection::Provider,
            tps_limit: 10,
            window: 10,
            max_rate_per_s: 10,
            queued: 4_738,
            sent_last_minute_per_s: 10.0,
            eta_seconds: 474,
            sandbox_tps_limit: SANDBOX_TPS,
            sandbox_window: SANDBOX_WINDOW,
            scheduled: 3,
            next_scheduled_at_ms: Some(T0 + DAY_MS),
        }
    );
    let sandbox = Pace::new(
        T0,
        sending_limits(&smpp(true, 10, 10)),
        PaceCounts { due: 20_000, ..counts },
    );
    assert_eq!(
        (sandbox.connection, sandbox.max_rate_per_s),
        (PaceConnection::Sandbox, SANDBOX_TPS)
    );
}

#[test]
fn a_message_scheduled_for_tomorrow_is_scheduled_not_queued_and_takes_no_time() {
    let tomorrow = T0 + DAY_MS;
    let counts = PaceCounts {
        scheduled: 1,
        next_scheduled_at_ms: Some(tomorrow),
        ..PaceCounts::default()
    };
    let p = Pace::new(T0, sending_limits(&smpp(false, 10, 10)), counts);
    assert_eq!(
        (p.queued, p.scheduled, p.eta_seconds, p.next_scheduled_at_ms),
        (0, 1, 0, Some(tomorrow))
    );
}
