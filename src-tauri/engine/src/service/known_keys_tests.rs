//! Keys are read once and then kept ([`crate::known_keys`]); every change to the keys, by any
//! statement the writer runs, is seen by the next request. On a real database file.

use super::Service;
use crate::access::{Caller, Scope};
use crate::store::StoreError;
use crate::test_support::{new_key, service};

/// Runs `sql` on key `id` through the writer, as any other statement would.
async fn change(s: &Service, sql: &'static str, id: i64) {
    s.store()
        .writer()
        .write(move |tx| -> Result<(), StoreError> {
            assert_eq!(tx.sql_for_tests().execute(sql, [id])?, 1);
            Ok(())
        })
        .await
        .unwrap();
}

fn scopes(caller: Option<Caller>) -> Vec<Scope> {
    caller.expect("the key is valid").scopes().to_vec()
}

#[tokio::test]
async fn a_key_revoked_by_any_statement_is_refused_at_the_next_request() {
    let dir = tempfile::tempdir().unwrap();
    let s = service(&dir);
    let (id, key) = new_key(&s, &dir).await;
    for _ in 0..2 {
        // The second one is answered from what was kept.
        assert!(s.authenticate(key.clone()).await.unwrap().is_some());
    }
    change(
        &s,
        "UPDATE api_key SET revoked_at = 1, revoked_by = 'test' WHERE id = ?1",
        id,
    )
    .await;
    assert_eq!(s.authenticate(key).await.unwrap(), None);
}

#[tokio::test]
async fn a_key_given_other_scopes_acts_with_them_at_the_next_request() {
    let dir = tempfile::tempdir().unwrap();
    let s = service(&dir);
    let (id, key) = new_key(&s, &dir).await;
    assert_eq!(
        scopes(s.authenticate(key.clone()).await.unwrap()),
        [Scope::Send, Scope::ReadOwn]
    );
    change(&s, "UPDATE api_key SET scopes = 'read:all' WHERE id = ?1", id).await;
    assert_eq!(scopes(s.authenticate(key.clone()).await.unwrap()), [Scope::ReadAll]);
    // A key that is not one, or unknown, is never taken for one.
    assert_eq!(s.authenticate(format!("{key}0")).await.unwrap(), None);
    assert_eq!(s.authenticate("Bearer x".into()).await.unwrap(), None);
}

#[tokio::test]
async fn a_write_to_another_table_does_not_move_the_keys_version() {
    let dir = tempfile::tempdir().unwrap();
    let s = service(&dir);
    let (_, key) = new_key(&s, &dir).await;
    let before = s.store().keys_version().get();
    assert!(s.authenticate(key).await.unwrap().is_some());
    s.store()
        .writer()
        .write(|tx| -> Result<usize, StoreError> {
            let sql = "INSERT INTO audit (at, actor, action) VALUES (1, 'test', 'test.note')";
            Ok(tx.sql_for_tests().execute(sql, [])?)
        })
        .await
        .unwrap();
    assert_eq!(s.store().keys_version().get(), before, "only the keys move the version");
}
