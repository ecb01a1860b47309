-- An operator's hold on a connection: draining (it takes nothing new) or disabled (unbound, it
-- sends nothing). No row: the connection sends by the routes. Who set it, when and why are in the
-- audit log as well; this row is what the next start reads.
CREATE TABLE connection_hold (
    connection TEXT PRIMARY KEY,
    hold TEXT NOT NULL CHECK (hold IN ('draining', 'disabled')),
    since INTEGER NOT NULL,
    actor TEXT NOT NULL,
    note TEXT
) WITHOUT ROWID;
