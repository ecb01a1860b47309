//! Opening the database, and bringing what it holds up to date before anything new arrives: id
//! keys made by the id rules in force, receipts stored but never applied, projections made by
//! older rules, replies from handsets stored before the inbox existed.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::store_at::StoreAt;
use super::{EngineError, CHUNK};
use crate::config::Config;
use crate::queue;
use crate::receipts::apply;
use crate::receipts::policy::ReceiptPolicy;
use crate::receipts::{rebuild, rekey};
use crate::store::tables::start_check;
use crate::store::{Store, StoreError, Writer};

/// Opens the database, migrating it (a SQLite file older than this build after a copy into
/// `backups`).
pub(super) async fn open_store(at: &StoreAt, backups: &Path) -> Result<Arc<Store>, EngineError> {
    let store = {
        let (at, backups) = (at.clone(), backups.to_owned());
        tokio::task::spawn_blocking(move || at.open(&backups))
            .await
            .map_err(|_| StoreError::Aborted)??
    };
    let report = store.migration().clone();
    let db = store.path().display().to_string();
    if report.applied.is_empty() {
        tracing::info!(schema = report.to_version, %db, "database opened");
    } else {
        tracing::info!(from = report.from_version, to = report.to_version, %db, "database migrated");
    }
    Ok(Arc::new(store))
}

/// Brings what the database holds up to date before anything new arrives: id keys made by the id
/// rules in force, messages no route takes, receipts stored but never applied, projections made
/// by older rules, replies stored before the inbox existed.
pub(super) async fn bring_up_to_date(
    store: &Store,
    policy: &ReceiptPolicy,
    config: &Config,
) -> Result<(), EngineError> {
    rekey_all(store, policy, config).await?;
    route_unrouted_at_start(store.writer(), config).await?;
    apply_pending_receipts(store.writer(), policy).await?;
    rebuild_wanted(store.writer(), policy).await?;
    file_earlier_replies(store.writer(), policy).await?;
    Ok(())
}

/// Makes the stored id keys again on each connection whose id rules changed.
pub(super) async fn rekey_all(store: &Store, policy: &ReceiptPolicy, config: &Config) -> Result<(), StoreError> {
    for c in config.connection_list() {
        rekey(store, policy.on(&c.name), &c.name).await?;
    }
    Ok(())
}

/// Gives a route, by the routes in force, to each message still to be sent that no connection
/// would take: queued by an earlier version for a connection since renamed, or for a route since
/// removed. One that no route takes keeps waiting, and is counted in a warning.
pub(super) async fn route_unrouted(writer: &Writer, config: &Config) -> Result<(), StoreError> {
    let routes = super::enabled_routes(config);
    let (names, links) = routes_and_links(&routes, config);
    let routes = Arc::new(routes);
    let unmatched = Arc::new(AtomicUsize::new(0));
    let left = unmatched.clone();
    let total = in_chunks(writer, move |tx, after| {
        let rows = queue::unrouted(tx, &names, &links, after, CHUNK)?;
        for row in &rows {
            match crate::intake::choose_route(&routes, &row.destination, row.kind, row.api_key.as_deref()) {
                Ok(route) => queue::set_route(tx, row.message_id, &route.name)?,
                Err(_) => _ = left.fetch_add(1, Ordering::Relaxed),
            }
        }
        Ok((rows.len(), rows.last().map_or(after, |r| r.message_id)))
    })
    .await?;
    let unmatched = unmatched.load(Ordering::Relaxed);
    if total > unmatched {
        tracing::info!(
            messages = total - unmatched,
            "messages waiting to be sent given a route by the routes in force"
        );
    }
    if unmatched > 0 {
        tracing::warn!(
            messages = unmatched,
            "messages waiting to be sent that no route takes: they wait until a route does (add a last route without conditions: they are routed as soon as the routes change)"
        );
    }
    Ok(())
}

/// The names a waiting message's route or connection must be among (see `queue::unrouted`): the
/// enabled routes' (`routes`, built from `config`), and the connections'.
fn routes_and_links(routes: &[crate::config::Route], config: &Config) -> (Vec<String>, Vec<String>) {
    let names = routes.iter().map(|r| r.name.clone()).collect();
    let links = config.connection_list().into_iter().map(|c| c.name).collect();
    (names, links)
}

/// [`route_unrouted`] at start, when the routes and connections in force are not those the last
/// start's check ran under: under the same, every waiting message was given a route among them,
/// and the check would read every waiting message to find none. (A change of settings while
/// running checks again, without recording it, so the next start checks once more.)
async fn route_unrouted_at_start(writer: &Writer, config: &Config) -> Result<(), StoreError> {
    let (names, links) = routes_and_links(&super::enabled_routes(config), config);
    let under = serde_json::json!({ "routes": names, "connections": links }).to_string();
    let same = under.clone();
    if writer
        .write(move |tx| Ok::<_, StoreError>(start_check::last(&*tx, "routes")?.as_deref() == Some(same.as_str())))
        .await?
    {
        return Ok(());
    }
    route_unrouted(writer, config).await?;
    writer.write(move |tx| start_check::record(tx, "routes", &under)).await
}

/// Makes the stored id keys by the id rules in force, where earlier rules made them.
pub(super) async fn rekey(store: &Store, policy: &ReceiptPolicy, connection: &str) -> Result<(), StoreError> {
    let (p, c) = (policy.clone(), connection.to_owned());
    let done = store.writer().write(move |tx| rekey::apply(tx, &p, &c)).await?;
    if !done.connections.is_empty() {
        tracing::info!(
            connections = ?done.connections,
            keys = done.keys,
            matched = done.matched,
            "stored id keys made again by the new id rules"
        );
    }
    Ok(())
}

/// Rebuilds, from the evidence, the projections computed by earlier rules: those a migration asked
/// for, and every one whose stored rules version is older than these rules'.
async fn rebuild_wanted(writer: &Writer, policy: &ReceiptPolicy) -> Result<(), StoreError> {
    writer.write(rebuild::older_rules).await?;
    let (mut looked, mut changed) = (0, 0);
    loop {
        let p = policy.clone();
        let (n, c) = writer.write(move |tx| rebuild::wanted(tx, &p, CHUNK)).await?;
        looked += n;
        changed += c;
        if n < CHUNK as usize {
            break;
        }
    }
    if looked > 0 {
        tracing::info!(
            messages = looked,
            changed,
            rules_version = crate::receipts::rules::RULES_VERSION,
            "projections computed by earlier rules rebuilt from their evidence"
        );
    }
    Ok(())
}

/// Puts the replies from handsets stored before the inbox existed into it (once: each gets its
/// decoded text as it is filed), so an upgrade shows them, and a STOP among them counts.
async fn file_earlier_replies(writer: &Writer, policy: &ReceiptPolicy) -> Result<(), StoreError> {
    let rules = policy.inbox.clone();
    let total = in_chunks(writer, move |tx, after| {
        crate::inbox::file_earlier(tx, &rules, after, CHUNK)
    })
    .await?;
    if total > 0 {
        tracing::info!(
            replies = total,
            "replies from handsets stored before the inbox existed are in it now"
        );
    }
    Ok(())
}

/// Runs `step` (one chunk after the id it is given; how many it did and the last id) until a
/// chunk comes back short; returns how many in all.
async fn in_chunks<F>(writer: &Writer, step: F) -> Result<usize, StoreError>
where
    F: Fn(&mut crate::store::WriteTx<'_>, i64) -> Result<(usize, i64), StoreError> + Clone + Send + 'static,
{
    let (mut after, mut total) = (0, 0);
    loop {
        let step = step.clone();
        let (n, last) = writer.write(move |tx| step(tx, after)).await?;
        total += n;
        after = last;
        if n < CHUNK as usize {
            return Ok(total);
        }
    }
}

/// Applies receipts that were stored but never applied (a crash between the two, or a failed
/// effect), before anything new arrives.
async fn apply_pending_receipts(writer: &Writer, policy: &ReceiptPolicy) -> Result<(), StoreError> {
    let p = policy.clone();
    let total = in_chunks(writer, move |tx, after| apply::process_pending(tx, &p, after, CHUNK)).await?;
    if total > 0 {
        tracing::warn!(
            receipts = total,
            "applied receipts that were stored but not applied before the last stop"
        );
    }
    Ok(())
}

#[cfg(test)]
#[path = "database_tests.rs"]
mod tests;
