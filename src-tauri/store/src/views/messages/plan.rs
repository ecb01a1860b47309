//! How a filter becomes SQL: the index that drives the page ([`Driver`]), the conditions checked
//! on that index and those checked on the rows it gives, and the queries built from them (see the
//! parent module's documentation for why).

use super::driver::{reversed_destination, text_condition, Driver};
use super::filter::{check_range, destination, report_entry_matches, text_query, Destination, MessageFilter};
use super::summary::SUMMARY_COLUMNS;
use super::LIST;
use crate::db::{Db, Dialect};
use crate::views::{cursor, page_limit, Arg, ViewError};
use smsdesk_core::domain::DeliveryState;

/// SQL conditions with their parameters, in order.
#[derive(Default)]
struct Conds {
    sql: Vec<String>,
    params: Vec<Arg>,
}

impl Conds {
    fn push(&mut self, sql: impl Into<String>, params: impl IntoIterator<Item = Arg>) {
        self.sql.push(sql.into());
        self.params.extend(params);
    }

    fn text(v: &str) -> Arg {
        Arg::Text(v.to_owned())
    }
}

/// A filter read and checked: the driving index, its conditions, and the rest.
pub(super) struct Plan {
    /// The store the queries are for.
    dialect: Dialect,
    driver: Driver,
    driving: Conds,
    residual: Conds,
    from_ms: Option<i64>,
    to_ms: Option<i64>,
    before: i64,
    /// The page size asked for.
    pub(super) limit: usize,
    budget: i64,
    /// Every candidate fits in the budget (a prefix's range counted): no floor to look for.
    within_budget: bool,
    /// Where a count's budget of candidates ends ([`Plan::set_floor`]).
    floor: Option<i64>,
}

impl Plan {
    /// Reads and checks `f` (its cursor, limit, time range and words), picks the index that drives
    /// the page and sorts each filter's condition onto it or onto the rows it gives. `budget` is
    /// the most candidate rows one page looks at.
    pub(super) fn new(f: &MessageFilter, budget: i64, dialect: Dialect) -> Result<Plan, ViewError> {
        Plan::build(f, budget, None, dialect)
    }

    /// The plan driven by a range of a destination index (the destination's for a prefix, the
    /// reversed destination's for a suffix), when `f` has such a destination and no words to
    /// search for (the full-text index drives those); `None` otherwise.
    pub(super) fn by_range(f: &MessageFilter, budget: i64, dialect: Dialect) -> Result<Option<Plan>, ViewError> {
        let driver = match f.destination.as_deref().and_then(destination) {
            Some(Destination::Prefix(_)) => Driver::Prefix,
            Some(Destination::Suffix(_)) => Driver::Suffix,
            _ => return Ok(None),
        };
        if text_query(f, dialect)?.is_some() {
            return Ok(None);
        }
        Plan::build(f, budget, Some(driver), dialect).map(Some)
    }

    fn build(f: &MessageFilter, budget: i64, range: Option<Driver>, dialect: Dialect) -> Result<Plan, ViewError> {
        let before = cursor::decode(LIST, f.cursor.as_deref())?.unwrap_or(i64::MAX);
        let limit = page_limit(f.limit)?;
        check_range(f)?;
        let text = text_query(f, dialect)?;
        let dest = f.destination.as_deref().and_then(destination);
        let mut plan = Plan {
            dialect,
            driver: range.unwrap_or_else(|| Driver::choose(f, text.is_some(), dest.as_ref())),
            driving: Conds::default(),
            residual: Conds::default(),
            from_ms: f.from_ms,
            to_ms: f.to_ms,
            before,
            limit,
            budget: budget.max(1),
            within_budget: false,
            floor: None,
        };
        let report = report_entry_matches(f)?;
        plan.add_conditions(f, text, dest, report);
        Ok(plan)
    }

    /// Adds each filter's condition, in a fixed order (the parameters follow it): on the driving
    /// index when it is the one that drives, else checked on the rows it gives.
    fn add_conditions(
        &mut self,
        f: &MessageFilter,
        text: Option<String>,
        dest: Option<Destination>,
        report: Option<(String, Vec<Arg>)>,
    ) {
        if let Some(t) = text {
            self.driving.push(text_condition(self.dialect), [Arg::Text(t)]);
        }
        match &dest {
            Some(Destination::Exact(d)) => self.on(Driver::Destination).push("m.destination = ?", [Conds::text(d)]),
            Some(Destination::Prefix(p)) => {
                // A range rather than LIKE: exact bytes, no escaping, no case folding.
                let mut end = p.clone();
                end.push(char::MAX);
                self.on(Driver::Prefix).push(
                    "m.destination >= ? AND m.destination < ?",
                    [Conds::text(p), Arg::Text(end)],
                );
            }
            Some(Destination::Suffix(digits)) => self.add_suffix(digits),
            None => {}
        }
        if let Some(s) = f.status {
            self.on(Driver::Status).push("q.status = ?", [Conds::text(s.as_str())]);
        }
        match f.state {
            Some(DeliveryState::Pending) => self.residual.push("(p.state IS NULL OR p.state = 'pending')", []),
            Some(s) => self.on(Driver::State).push("p.state = ?", [Conds::text(s.as_str())]),
            None => {}
        }
        if let Some(k) = f.kind {
            self.residual.push("m.kind = ?", [Conds::text(k.as_str())]);
        }
        if let Some(ch) = f.channel {
            self.residual.push("m.channel = ?", [Conds::text(ch.as_str())]);
        }
        if let Some(key) = f.only_key {
            self.on(Driver::Key).push("m.api_key_id = ?", [Arg::Int(key)]);
        }
        if let Some((sql, params)) = report {
            self.residual.push(sql, params);
        }
    }

    /// The last digits of the destination: a range of the reversed destination when its index
    /// drives, else the end of each row's destination compared.
    fn add_suffix(&mut self, digits: &str) {
        if self.driver == Driver::Suffix {
            let reversed: String = digits.chars().rev().collect();
            let mut end = reversed.clone();
            end.push(char::MAX);
            let key = reversed_destination("m.destination", self.dialect);
            self.driving.push(
                format!("{key} >= ? AND {key} < ?"),
                [Arg::Text(reversed), Arg::Text(end)],
            );
        } else {
            let len = digits.chars().count() as i64;
            let (sql, len) = match self.dialect {
                // substr(x, -n) is the last n characters on SQLite, and means something else on PostgreSQL.
                Dialect::Sqlite => ("substr(m.destination, ?) = ?", -len),
                Dialect::Postgres => ("right(m.destination, ?) = ?", len),
            };
            self.residual.push(sql, [Arg::Int(len), Conds::text(digits)]);
        }
    }

    /// Where a condition that `driver`'s index could take goes: onto the driving index when
    /// `driver` is the one driving, else among the conditions checked on each row.
    fn on(&mut self, driver: Driver) -> &mut Conds {
        if self.driver == driver {
            &mut self.driving
        } else {
            &mut self.residual
        }
    }

    /// Narrows the page to the creation-time range. While creation times have followed ids (the
    /// clock was never set back: the writer counts its steps back), the range is an id range found
    /// with two index lookups and given to the driving index, so an old range costs no more than a
    /// recent one; otherwise each row's time is checked. `false` when no message can be in the
    /// range.
    pub(super) fn bound_dates(&mut self, c: Db<'_>) -> Result<bool, ViewError> {
        if self.from_ms.is_none() && self.to_ms.is_none() {
            return Ok(true);
        }
        let backwards: i64 = c.one(
            "SELECT coalesce(max(n), 0) FROM view_count WHERE scope = 'clock' AND value = 'backwards'",
            &[],
        )?;
        if backwards > 0 {
            if let Some(from) = self.from_ms {
                self.residual.push("m.created_at >= ?", [Arg::Int(from)]);
            }
            if let Some(to) = self.to_ms {
                self.residual.push("m.created_at < ?", [Arg::Int(to)]);
            }
            return Ok(true);
        }
        // SQLite is told to use the creation index; PostgreSQL has no INDEXED BY.
        let message = match self.dialect {
            Dialect::Sqlite => "message INDEXED BY message_created",
            Dialect::Postgres => "message",
        };
        let id = self.driver.id(self.dialect);
        if let Some(from) = self.from_ms {
            let sql = format!("SELECT id FROM {message} WHERE created_at >= ?1 ORDER BY created_at, id LIMIT 1");
            let Some(first) = c.query_opt(&sql, &[&from], |r| r.get::<i64>(0))? else {
                return Ok(false);
            };
            self.driving.push(format!("{id} >= ?"), [Arg::Int(first)]);
        }
        if let Some(to) = self.to_ms {
            let sql =
                format!("SELECT id FROM {message} WHERE created_at < ?1 ORDER BY created_at DESC, id DESC LIMIT 1");
            let Some(last) = c.query_opt(&sql, &[&to], |r| r.get::<i64>(0))? else {
                return Ok(false);
            };
            self.driving.push(format!("{id} <= ?"), [Arg::Int(last)]);
        }
        Ok(true)
    }

    /// The query for the id where the scan budget runs out, when rows may be skipped at all.
    pub(super) fn floor_query(&self) -> Option<(String, Vec<Arg>)> {
        if self.residual.sql.is_empty() || self.within_budget {
            return None;
        }
        let id = self.driver.id(self.dialect);
        let mut where_ = self.driving.sql.clone();
        where_.push(format!("{id} < ?"));
        let mut params = self.driving.params.clone();
        params.push(Arg::Int(self.before));
        params.push(Arg::Int(self.budget - 1));
        let sql = format!(
            "SELECT {id} FROM {} WHERE {} ORDER BY {id} DESC LIMIT 1 OFFSET ?",
            self.driver.table(self.dialect),
            where_.join(" AND ")
        );
        Some((sql, params))
    }

    /// How many entries of the destination range (after the cursor, within the dates) there are,
    /// counted up to one more than the budget: the index alone, no row read.
    pub(super) fn range_probe(&self) -> (String, Vec<Arg>) {
        self.range_count_upto(self.budget + 1)
    }

    /// The entries of the destination range (after the cursor, within the dates) counted up to
    /// `limit`, from the index alone.
    pub(super) fn range_count_upto(&self, limit: i64) -> (String, Vec<Arg>) {
        let mut where_ = self.driving.sql.clone();
        where_.push("m.id < ?".to_owned());
        let mut params = self.driving.params.clone();
        params.push(Arg::Int(self.before));
        params.push(Arg::Int(limit));
        let sql = format!(
            "SELECT count(*) FROM (SELECT 1 FROM {} WHERE {} LIMIT ?) r",
            self.driver.table(self.dialect),
            where_.join(" AND ")
        );
        (sql, params)
    }

    /// Whether some condition is checked on the rows rather than by the driving index.
    pub(super) fn has_residual(&self) -> bool {
        !self.residual.sql.is_empty()
    }

    /// Whether a range of a destination index drives (a prefix or a suffix).
    pub(super) fn is_range(&self) -> bool {
        matches!(self.driver, Driver::Prefix | Driver::Suffix)
    }

    /// Whether the prefix's range has no more entries than the budget (the count of
    /// [`Plan::range_probe`] says so): then the page looks at all of them, with no floor.
    pub(super) fn range_within_budget(&mut self, entries: i64) -> bool {
        self.within_budget = entries <= self.budget;
        self.within_budget
    }

    /// The query for the page's rows, down to `floor` when the budget ends there.
    pub(super) fn page_query(&self, floor: Option<i64>) -> (String, Vec<Arg>) {
        if self.is_range() {
            return self.range_page_query(floor);
        }
        let id = self.driver.id(self.dialect);
        let mut where_ = self.driving.sql.clone();
        where_.push(format!("{id} < ?"));
        let mut params = self.driving.params.clone();
        params.push(Arg::Int(self.before));
        if let Some(floor) = floor {
            where_.push(format!("{id} >= ?"));
            params.push(Arg::Int(floor));
        }
        where_.extend(self.residual.sql.iter().cloned());
        params.extend(self.residual.params.iter().cloned());
        params.push(Arg::Int(self.limit as i64 + 1));
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS} FROM {} WHERE {} ORDER BY {id} DESC LIMIT ?",
            self.driver.joined(self.dialect),
            where_.join(" AND ")
        );
        (sql, params)
    }

    /// The page's query when the destination prefix's range drives: the range's ids after the
    /// cursor (down to `floor`), from the covering index, sorted newest first, then the rows of
    /// those ids in that order until the page is full. Only the ids are sorted, and only as many
    /// as may be read: the page's worth when every row matches, else the budget.
    fn range_page_query(&self, floor: Option<i64>) -> (String, Vec<Arg>) {
        let mut inner = self.driving.sql.clone();
        inner.push("m.id < ?".to_owned());
        let mut params = self.driving.params.clone();
        params.push(Arg::Int(self.before));
        if let Some(floor) = floor {
            inner.push("m.id >= ?".to_owned());
            params.push(Arg::Int(floor));
        }
        let page = self.limit as i64 + 1;
        params.push(Arg::Int(match self.residual.sql.is_empty() {
            true => page,
            false => self.budget.max(page),
        }));
        let residual = match self.residual.sql.is_empty() {
            true => String::new(),
            false => format!("WHERE {}", self.residual.sql.join(" AND ")),
        };
        params.extend(self.residual.params.iter().cloned());
        params.push(Arg::Int(page));
        let cross = self.cross();
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS}
             FROM (SELECT m.id FROM {} WHERE {} ORDER BY m.id DESC LIMIT ?) d
             {cross} message m ON m.id = d.id {cross} queue q ON q.message_id = m.id
             LEFT JOIN projection p ON p.message_id = m.id
             {residual} ORDER BY d.id DESC LIMIT ?",
            self.driver.table(self.dialect),
            inner.join(" AND ")
        );
        (sql, params)
    }

    /// How the range's ids are joined to their rows: in that order on SQLite (`CROSS JOIN`, which
    /// PostgreSQL does not take with a condition; its planner orders the joins itself).
    fn cross(&self) -> &'static str {
        match self.dialect {
            Dialect::Sqlite => "CROSS JOIN",
            Dialect::Postgres => "JOIN",
        }
    }

    /// A count looks at no candidate below `floor` (from [`Plan::floor_query`]; `None`: every one).
    pub(super) fn set_floor(&mut self, floor: Option<i64>) {
        self.floor = floor;
    }

    /// The query that counts matches among the candidates a count may look at: the driving index
    /// down to the floor ([`Plan::set_floor`]), or the first `budget` entries of a destination
    /// range (in the index's order: which of them does not matter once the range is within the
    /// budget). Its last parameter, left to the caller, is how many matches to count at most.
    pub(super) fn bounded_count_query(&self) -> (String, Vec<Arg>) {
        let residual = match self.residual.sql.is_empty() {
            true => String::new(),
            false => format!("WHERE {}", self.residual.sql.join(" AND ")),
        };
        let mut params = self.driving.params.clone();
        if self.is_range() {
            params.push(Arg::Int(self.budget));
            params.extend(self.residual.params.iter().cloned());
            let cross = self.cross();
            let sql = format!(
                "SELECT count(*) FROM (SELECT 1
                 FROM (SELECT m.id FROM {} WHERE {} LIMIT ?) d
                 {cross} message m ON m.id = d.id {cross} queue q ON q.message_id = m.id
                 LEFT JOIN projection p ON p.message_id = m.id {residual} LIMIT ?) r",
                self.driver.table(self.dialect),
                self.driving.sql.join(" AND ")
            );
            return (sql, params);
        }
        let id = self.driver.id(self.dialect);
        let mut where_ = self.driving.sql.clone();
        if let Some(floor) = self.floor {
            where_.push(format!("{id} >= ?"));
            params.push(Arg::Int(floor));
        }
        where_.extend(self.residual.sql.iter().cloned());
        params.extend(self.residual.params.iter().cloned());
        if where_.is_empty() {
            where_.push("1 = 1".to_owned());
        }
        let sql = format!(
            "SELECT count(*) FROM (SELECT 1 FROM {} WHERE {} LIMIT ?) r",
            self.driver.joined(self.dialect),
            where_.join(" AND ")
        );
        (sql, params)
    }

    /// The query that counts every match, or `None` when nothing is filtered (the running count
    /// of all messages answers that). The cursor is not applied.
    pub(super) fn count_query(&self) -> Option<(String, Vec<Arg>)> {
        if self.driving.sql.is_empty() && self.residual.sql.is_empty() {
            return None;
        }
        let mut conds = self.driving.sql.clone();
        conds.extend(self.residual.sql.iter().cloned());
        let mut params = self.driving.params.clone();
        params.extend(self.residual.params.iter().cloned());
        let sql = format!(
            "SELECT count(*) FROM {} WHERE {}",
            self.driver.joined(self.dialect),
            conds.join(" AND ")
        );
        Some((sql, params))
    }
}
