//! A PostgreSQL connection as the store uses one: one client, its prepared statements kept by
//! their SQL, and values met at its edge. A parameter takes the type PostgreSQL inferred for its
//! place (an integer goes into an `int4`, `int8`, `float8`, `numeric` or `text` place alike), and a
//! column of any type the schema uses reads back as one of SQLite's five kinds, as SQLite would
//! give it: the same SQL and the same Rust then serve both stores.

use std::cell::{Cell, RefCell, RefMut};
use std::collections::HashMap;
use std::error::Error;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use postgres::types::{accepts, to_sql_checked, FromSql, IsNull, ToSql, Type};
use postgres::{Client, Row, Statement};

use super::value::Value;
use super::PgTarget;
use crate::number_key::KeyCell;
use crate::StoreError;

type BoxError = Box<dyn Error + Sync + Send>;

/// How long a connection may sit idle and still be used without first asking the server.
const TRUSTED_IDLE: Duration = Duration::from_secs(1);

/// Prepared statements kept per connection; past this many the cache starts again.
const KEEP_STATEMENTS: usize = 512;

/// One PostgreSQL connection.
pub struct PgConn {
    target: PgTarget,
    /// When a statement last ran on it: a connection idle longer than [`TRUSTED_IDLE`] is asked
    /// whether it still works before it is used again (a server that restarted meanwhile ended it,
    /// and the client learns that only when it next speaks).
    last_used: Cell<Instant>,
    /// Always there but while the connection is dropped (see the `Drop` below).
    client: RefCell<Option<Client>>,
    statements: RefCell<HashMap<String, Statement>>,
    /// The key numbers are hashed with: the store's, shared by its connections and set once by the
    /// engine. PostgreSQL has no `number_token` (the key must not reach the server), so the
    /// store's functions hash here, in Rust, with the key the connection carries (see
    /// [`crate::number_token`]).
    number_key: KeyCell,
}

impl PgConn {
    /// Connects with `url` (`postgres://user:password@host:port/database`, or key=value pairs).
    pub fn connect(url: &str) -> Result<PgConn, StoreError> {
        PgConn::connect_to(&PgTarget::new(url, None)?)
    }

    /// Connects to `target`.
    pub fn connect_to(target: &PgTarget) -> Result<PgConn, StoreError> {
        Ok(PgConn {
            target: target.clone(),
            last_used: Cell::new(Instant::now()),
            client: RefCell::new(Some(target.connect()?)),
            statements: RefCell::new(HashMap::new()),
            number_key: KeyCell::default(),
        })
    }

    /// [`PgConn::connect`], hashing numbers with the store's key `number_key` (set or to be set).
    pub(crate) fn connect_keyed(target: &PgTarget, number_key: &KeyCell) -> Result<PgConn, StoreError> {
        let mut conn = PgConn::connect_to(target)?;
        conn.number_key = number_key.clone();
        Ok(conn)
    }

    /// The key this connection hashes numbers with (empty until the engine sets the store's).
    pub(crate) fn number_key(&self) -> &KeyCell {
        &self.number_key
    }

    /// Whether the connection can be used: not closed, and, after it was idle a while, still
    /// answering.
    pub fn usable(&self) -> bool {
        if self.is_closed() {
            return false;
        }
        if self.last_used.get().elapsed() < TRUSTED_IDLE {
            return true;
        }
        self.execute_batch("SELECT 1").is_ok()
    }

    /// Connects again when the connection was lost (the server restarted, or ended it): what
    /// comes next runs on a new one. A failure to connect is left for that to meet.
    pub fn reconnect_unless_usable(&self) {
        if self.usable() {
            return;
        }
        match self.target.connect() {
            Ok(client) => {
                *self.client() = client;
                self.statements.borrow_mut().clear();
                tracing::info!("connected to PostgreSQL again");
            }
            Err(e) => tracing::warn!(error = %crate::error::postgres_said(&e), "cannot connect to PostgreSQL again"),
        }
    }

    fn client(&self) -> RefMut<'_, Client> {
        RefMut::map(self.client.borrow_mut(), |c| {
            c.as_mut().expect("the client is there until dropped")
        })
    }

    fn statement(&self, sql: &str) -> Result<Statement, StoreError> {
        self.last_used.set(Instant::now());
        if let Some(s) = self.statements.borrow().get(sql) {
            return Ok(s.clone());
        }
        let prepared = self.client().prepare(&super::placeholders::numbered(sql))?;
        let mut statements = self.statements.borrow_mut();
        if statements.len() >= KEEP_STATEMENTS {
            statements.clear();
        }
        statements.insert(sql.to_owned(), prepared.clone());
        Ok(prepared)
    }

    pub(super) fn execute(&self, sql: &str, params: &[Value<'_>]) -> Result<usize, StoreError> {
        let statement = self.statement(sql)?;
        let n = self.client().execute(&statement, &refs(params))?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    pub(super) fn query(&self, sql: &str, params: &[Value<'_>]) -> Result<Vec<Row>, StoreError> {
        let statement = self.statement(sql)?;
        Ok(self.client().query(&statement, &refs(params))?)
    }

    /// Statements without parameters, separated by semicolons (a migration, `BEGIN`, `COMMIT`).
    pub(super) fn execute_batch(&self, sql: &str) -> Result<(), StoreError> {
        self.last_used.set(Instant::now());
        Ok(self.client().batch_execute(sql)?)
    }

    /// Whether the connection was lost (the server went away): it cannot be used again.
    pub fn is_closed(&self) -> bool {
        self.client.borrow().as_ref().is_none_or(Client::is_closed)
    }
}

/// The client ends its connection by blocking on its own runtime, which may not be done on a
/// thread that drives an async runtime: a connection let go there (the last handle on the
/// reader dropped by an async task) is closed on a thread of its own.
impl Drop for PgConn {
    fn drop(&mut self) {
        let Some(client) = self.client.get_mut().take() else {
            return;
        };
        if tokio::runtime::Handle::try_current().is_ok() {
            let _ = std::thread::Builder::new()
                .name("smsdesk-pg-close".into())
                .spawn(move || drop(client));
        }
    }
}

fn refs<'a>(params: &'a [Value<'a>]) -> Vec<&'a (dyn ToSql + Sync)> {
    params.iter().map(|v| v as &(dyn ToSql + Sync)).collect()
}

/// Column `i` of `row`, as SQLite would give it.
pub(super) fn column(row: &Row, i: usize) -> Result<Value<'_>, StoreError> {
    row.try_get::<_, Column<'_>>(i)
        .map(|c| c.0)
        .map_err(|e| StoreError::Corrupt(format!("column {i}: {e}")))
}

/// A column of any type, read as a [`Value`].
struct Column<'a>(Value<'a>);

impl<'a> FromSql<'a> for Column<'a> {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Column<'a>, BoxError> {
        let v = match *ty {
            Type::INT8 => Value::Int(i64::from_sql(ty, raw)?),
            Type::INT4 => Value::Int(i32::from_sql(ty, raw)?.into()),
            Type::INT2 => Value::Int(i16::from_sql(ty, raw)?.into()),
            Type::OID => Value::Int(u32::from_sql(ty, raw)?.into()),
            Type::BOOL => Value::Int(bool::from_sql(ty, raw)?.into()),
            Type::FLOAT8 => Value::Real(f64::from_sql(ty, raw)?),
            Type::FLOAT4 => Value::Real(f32::from_sql(ty, raw)?.into()),
            // SUM of integers and AVG are numeric in PostgreSQL, where SQLite gives an integer
            // (a whole sum) or a real.
            Type::NUMERIC => numeric(raw)?,
            Type::BYTEA => Value::Blob(<&[u8]>::from_sql(ty, raw)?),
            _ => Value::Text(<&str>::from_sql(ty, raw)?),
        };
        Ok(Column(v))
    }

    fn from_sql_null(_: &Type) -> Result<Column<'a>, BoxError> {
        Ok(Column(Value::Null))
    }

    fn accepts(ty: &Type) -> bool {
        // Everything the text reader takes, and what is matched above.
        <&str as FromSql>::accepts(ty)
            || matches!(
                *ty,
                Type::INT8
                    | Type::INT4
                    | Type::INT2
                    | Type::OID
                    | Type::BOOL
                    | Type::FLOAT8
                    | Type::FLOAT4
                    | Type::NUMERIC
                    | Type::BYTEA
            )
    }
}

/// A `numeric` in PostgreSQL's binary form (digit count, weight, sign, display scale, then
/// base-10000 digits): an integer when it has no fraction and fits, else a real.
fn numeric(raw: &[u8]) -> Result<Value<'static>, BoxError> {
    let word = |i: usize| -> Result<u16, BoxError> {
        raw.get(i * 2..i * 2 + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .ok_or_else(|| "a numeric shorter than its header says".into())
    };
    let (count, weight, sign) = (word(0)?, word(1)? as i16, word(2)?);
    if sign == 0xC000 {
        return Ok(Value::Real(f64::NAN));
    }
    let mut whole: i128 = 0;
    let mut real = 0f64;
    let mut fraction = false;
    for k in 0..count {
        let digit = word(4 + usize::from(k))?;
        let power = i32::from(weight) - i32::from(k);
        real += f64::from(digit) * 10000f64.powi(power);
        if power < 0 && digit != 0 {
            fraction = true;
        } else if power >= 0 {
            whole = whole.saturating_mul(10000).saturating_add(i128::from(digit));
        }
    }
    // Trailing zero groups of the whole part are not sent: the weight says how many there are.
    let sent_groups = i32::from(count).min(i32::from(weight) + 1);
    for _ in sent_groups.max(0)..i32::from(weight) + 1 {
        whole = whole.saturating_mul(10000);
    }
    let negative = sign == 0x4000;
    let (whole, real) = if negative { (-whole, -real) } else { (whole, real) };
    match (fraction, i64::try_from(whole)) {
        (false, Ok(i)) => Ok(Value::Int(i)),
        _ => Ok(Value::Real(real)),
    }
}

impl ToSql for Value<'_> {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        match *self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(i) => match *ty {
                Type::INT8 => i.to_sql(ty, out),
                Type::INT4 => i32::try_from(i)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(i)?.to_sql(ty, out),
                Type::BOOL => (i != 0).to_sql(ty, out),
                Type::FLOAT8 => (i as f64).to_sql(ty, out),
                Type::FLOAT4 => (i as f32).to_sql(ty, out),
                Type::NUMERIC => {
                    out.extend_from_slice(&numeric_of(i));
                    Ok(IsNull::No)
                }
                Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
                    i.to_string().as_str().to_sql(ty, out)
                }
                _ => Err(format!("an integer cannot go where PostgreSQL expects {ty}").into()),
            },
            Value::Real(r) => match *ty {
                Type::FLOAT4 => (r as f32).to_sql(ty, out),
                Type::FLOAT8 => r.to_sql(ty, out),
                _ => Err(format!("a real cannot go where PostgreSQL expects {ty}").into()),
            },
            Value::Text(t) if <&str as ToSql>::accepts(ty) => t.to_sql(ty, out),
            Value::Blob(b) if *ty == Type::BYTEA => b.to_sql(ty, out),
            Value::Text(_) => Err(format!("text cannot go where PostgreSQL expects {ty}").into()),
            Value::Blob(_) => Err(format!("a blob cannot go where PostgreSQL expects {ty}").into()),
        }
    }

    accepts!(INT8, INT4, INT2, BOOL, FLOAT8, FLOAT4, NUMERIC, TEXT, VARCHAR, BPCHAR, NAME, UNKNOWN, BYTEA);

    to_sql_checked!();
}

/// An integer in `numeric`'s binary form.
fn numeric_of(i: i64) -> Vec<u8> {
    let mut digits = Vec::new();
    let mut rest = i.unsigned_abs();
    while rest > 0 {
        digits.push((rest % 10000) as u16);
        rest /= 10000;
    }
    digits.reverse();
    let weight = digits.len().saturating_sub(1) as u16;
    let sign: u16 = if i < 0 { 0x4000 } else { 0 };
    let mut out = Vec::with_capacity(8 + digits.len() * 2);
    for w in [digits.len() as u16, weight, sign, 0] {
        out.extend_from_slice(&w.to_be_bytes());
    }
    for d in digits {
        out.extend_from_slice(&d.to_be_bytes());
    }
    out
}
