//! A process and its descendants as Linux's /proc shows them, and their proportional set size
//! (PSS: each shared page split among the processes mapping it, so summing PSS over a tree
//! counts shared libraries once). Used by the `desktop_start` bench for "idle memory, all
//! processes".

use std::collections::HashMap;

use anyhow::{anyhow, Context};

/// One process of a tree: its id, command name (`/proc/<pid>/comm`) and PSS in KiB.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ProcPss {
    pub pid: u32,
    pub comm: String,
    pub pss_kib: u64,
}

/// `root` and every live descendant (children of children…), root first. Processes that exit
/// while /proc is read are skipped.
pub fn descendants(root: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            if let Some(ppid) = parent_of(pid) {
                children.entry(ppid).or_default().push(pid);
            }
        }
    }
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        if let Some(kids) = children.get(&out[i]) {
            out.extend(kids.iter().copied());
        }
        i += 1;
    }
    out
}

/// The parent pid from `/proc/<pid>/stat` (the field after the state, after the last ')').
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.rsplit_once(')')?.1;
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// PSS of one process in KiB, from `/proc/<pid>/smaps_rollup` (Linux ≥ 4.14).
pub fn pss_kib(pid: u32) -> anyhow::Result<u64> {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .with_context(|| format!("reading /proc/{pid}/smaps_rollup"))?;
    rollup
        .lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| anyhow!("no Pss line in /proc/{pid}/smaps_rollup"))
}

/// PSS of `root` and all its descendants, one entry per process that could be read.
pub fn tree_pss(root: u32) -> Vec<ProcPss> {
    descendants(root)
        .into_iter()
        .filter_map(|pid| {
            let pss_kib = pss_kib(pid).ok()?;
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .map(|c| c.trim().to_owned())
                .unwrap_or_default();
            Some(ProcPss { pid, comm, pss_kib })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_a_pss_and_its_child_is_a_descendant() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .expect("sleep runs");
        let tree = tree_pss(std::process::id());
        let _ = child.kill();
        let _ = child.wait();
        assert!(tree[0].pss_kib > 0, "this process maps memory: {tree:?}");
        assert!(
            tree.iter().any(|p| p.pid == child.id()),
            "the child is in the tree: {tree:?}"
        );
    }
}
