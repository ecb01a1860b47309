//! Per-table write handles. The logs' handles offer only `append`: there is no way, through the
//! engine's API, to change or remove evidence once written (and SQL triggers refuse it as well).

mod audit;
mod receipt;

pub use audit::{AuditLog, NewAudit};
pub use receipt::{NewReceipt, ReceiptLog};
