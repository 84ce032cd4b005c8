//! The content model's rules (docs: the message format), tested through the crate's public API
//! as agents and the relay use it: limits at and past each bound, forms, answers, attachments,
//! the published JSON Schema, and the shapes every block and field accepts.

mod attachments;
mod forms;
mod limits;
mod messages;
mod schema;
mod shapes;
