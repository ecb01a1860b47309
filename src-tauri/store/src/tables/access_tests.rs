//! Accounts and sessions on both stores: what a browser signed in on one node finds on another
//! is these rows, so they must read and write alike on SQLite and PostgreSQL.

use smsdesk_core::access::Role;

use super::{account, session};
use crate::both_stores::on_both;
use crate::writer::write_for_tests;

#[test]
fn an_account_signs_in_and_its_sessions_are_seen_revoked_and_listed_alike_on_both_stores() {
    on_both(|db| {
        let (ana, second) = write_for_tests(db, 1_000, |tx| {
            let ana = account::insert(tx, "Ana", Role::Admin, "hash-a", "setup")?.expect("a new name");
            assert_eq!(
                account::insert(tx, "Ana", Role::Viewer, "hash-b", "setup")?,
                None,
                "a taken name"
            );
            account::insert(tx, "bob", Role::Viewer, "hash-b", "Ana")?;
            let first = session::insert(
                tx,
                &session::NewSession {
                    account_id: ana,
                    token_hash: "t1",
                    expires_at_ms: 10_000,
                    address: "127.0.0.1",
                    user_agent: "test",
                },
            )?;
            let second = session::insert(
                tx,
                &session::NewSession {
                    account_id: ana,
                    token_hash: "t2",
                    expires_at_ms: 10_000,
                    address: "127.0.0.2",
                    user_agent: "test",
                },
            )?;
            assert!(second > first);
            Ok((ana, second))
        })
        .unwrap();
        let names: Vec<String> = account::list(&db).unwrap().into_iter().map(|a| a.name).collect();
        assert_eq!(names, ["Ana", "bob"], "{:?}", db.dialect());
        assert_eq!(account::counts(&db).unwrap(), (2, 1));
        let creds = account::credentials(&db, "Ana").unwrap().unwrap();
        assert_eq!((creds.id, creds.role, creds.disabled), (ana, Role::Admin, false));
        let live = session::live(&db, "t2").unwrap().unwrap();
        assert_eq!((live.id, live.name.as_str(), live.last_seen_ms), (second, "Ana", 1_000));
        write_for_tests(db, 2_000, |tx| {
            session::seen(tx, second)?;
            assert_eq!(
                session::revoke_all(tx, ana, "Ana", Some(second))?,
                1,
                "all but the one kept"
            );
            Ok(())
        })
        .unwrap();
        assert_eq!(session::live(&db, "t1").unwrap(), None);
        assert_eq!(session::live(&db, "t2").unwrap().unwrap().last_seen_ms, 2_000);
        let listed: Vec<i64> = session::list_live(&db, 5_000).unwrap().iter().map(|s| s.id).collect();
        assert_eq!(listed, [second]);
        write_for_tests(db, 3_000, |tx| {
            assert!(session::revoke(tx, second, "Ana")?);
            assert!(!session::revoke(tx, second, "Ana")?, "revoked once");
            account::set_disabled(tx, ana, true)
        })
        .unwrap();
        assert!(account::credentials(&db, "Ana").unwrap().unwrap().disabled);
        assert_eq!(account::counts(&db).unwrap(), (2, 0));
    });
}
