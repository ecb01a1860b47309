//! The PostgreSQL store: the schema's migrations for it, and the application's role. The same
//! tables, columns and rules as SQLite's; what must differ is said where it does (see
//! `schema/NOTES.md`).

pub mod migrations;
mod open;

#[cfg(test)]
mod store_tests;
#[cfg(test)]
mod tests;
