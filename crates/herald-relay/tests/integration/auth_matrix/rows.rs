//! A row of the matrix: one route (method and path exactly as the router names them), one
//! scenario that calls it as any credential, and the expected outcome per credential.

use std::future::Future;
use std::pin::Pin;

use super::cells::{Cred, Expect};
use super::world::{Reply, World};

/// Calls the row's route as `cred`, with fresh resources of A where the call changes them.
pub type Scenario = for<'a> fn(&'a World, Cred) -> Pin<Box<dyn Future<Output = Reply> + 'a>>;

/// Wraps `async fn(&World, Cred) -> Reply` as a [`Scenario`].
macro_rules! scenario {
    ($f:path) => {{
        fn run(
            w: &$crate::auth_matrix::world::World,
            c: $crate::auth_matrix::cells::Cred,
        ) -> std::pin::Pin<
            Box<dyn std::future::Future<Output = $crate::auth_matrix::world::Reply> + '_>,
        > {
            Box::pin($f(w, c))
        }
        run as $crate::auth_matrix::rows::Scenario
    }};
}
pub(crate) use scenario;

pub struct Row {
    /// `GET`, `POST`, …; `*` for a path's fallback of every other method.
    pub method: &'static str,
    /// The router's path, e.g. `/messages/{id}`.
    pub path: &'static str,
    /// What the call does, for the docs and failure messages.
    pub case: &'static str,
    pub expect: Expect,
    pub run: Scenario,
    /// B's successful answers may hold A's ids (the data is public by design).
    pub public_data: bool,
    /// Cells run after all the others, in this order (their calls end an account).
    pub last: &'static [Cred],
}

impl Row {
    pub fn new(
        method: &'static str,
        path: &'static str,
        case: &'static str,
        expect: Expect,
        run: Scenario,
    ) -> Row {
        Row {
            method,
            path,
            case,
            expect,
            run,
            public_data: false,
            last: &[],
        }
    }

    /// B may see A's ids in this route's answers.
    pub fn public_data(mut self) -> Row {
        self.public_data = true;
        self
    }

    /// These cells run after every other cell of every row.
    pub fn last(mut self, creds: &'static [Cred]) -> Row {
        self.last = creds;
        self
    }

    pub fn route(&self) -> (String, String) {
        (self.method.to_owned(), self.path.to_owned())
    }

    /// The columns in the order they run: every column but [`Row::last`].
    pub fn first_cells(&self) -> impl Iterator<Item = Cred> + '_ {
        Cred::ALL.into_iter().filter(|c| !self.last.contains(c))
    }
}
