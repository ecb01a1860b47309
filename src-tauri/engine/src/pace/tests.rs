use super::*;
use crate::config::AtLeastOne;

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
