//! What a file that takes another's place carries over from it: owner, group, mode, and its
//! extended attributes — user attributes, and the POSIX ACL, which Linux keeps as the
//! `system.posix_acl_access` attribute. A replace that dropped them would quietly change who
//! may read the session (an ACL granting a colleague or a backup tool access, gone) or lose
//! what a user or a tool tagged it with.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};

use rustix::fs::XattrFlags;
use rustix::io::Errno;

/// The owner, group and permission bits a replacement takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    /// The owner's user id.
    pub uid: u32,
    /// The group id.
    pub gid: u32,
    /// The permission bits, set-id and sticky bits included.
    pub mode: u32,
}

impl Owner {
    /// The owner, group and mode of an open file.
    pub fn of(file: &File) -> io::Result<Owner> {
        let meta = file.metadata()?;
        Ok(Owner {
            uid: meta.uid(),
            gid: meta.gid(),
            mode: meta.mode() & 0o7777,
        })
    }
}

/// Gives `to` the owner, group and mode of `owner`, and every extended attribute of `from`
/// (the original, open). Fails naming what could not be carried over.
pub fn carry_over(from: &File, owner: Owner, to: &File) -> io::Result<()> {
    let meta = to.metadata()?;
    if (meta.uid(), meta.gid()) != (owner.uid, owner.gid) {
        if let Err(error) = std::os::unix::fs::fchown(to, Some(owner.uid), Some(owner.gid)) {
            // A user who may not give the file the original's group (it is not one of theirs)
            // still owns it; anyone else would take the session away from its owner.
            if meta.uid() != owner.uid {
                return Err(error);
            }
        }
    }
    // After chown, which clears set-id bits.
    to.set_permissions(fs::Permissions::from_mode(owner.mode))?;
    // Last: an ACL sets the group bits to its mask, which the original's mode already shows.
    copy_xattrs(from, to)
}

/// The names of a file's extended attributes; none where the file system keeps none.
fn names(file: &File) -> io::Result<Vec<Vec<u8>>> {
    let mut list = Vec::new();
    loop {
        let size = match rustix::fs::flistxattr_query(file) {
            Ok(size) => size,
            Err(Errno::NOTSUP) => return Ok(Vec::new()),
            Err(error) => return Err(error.into()),
        };
        if size == 0 {
            return Ok(Vec::new());
        }
        list.resize(size, 0);
        match rustix::fs::flistxattr(file, &mut list[..]) {
            Ok(n) => {
                list.truncate(n);
                break;
            }
            // One was added since the size was asked: ask again.
            Err(Errno::RANGE) => continue,
            Err(error) => return Err(error.into()),
        }
    }
    Ok(list
        .split(|&b| b == 0)
        .filter(|name| !name.is_empty())
        .map(<[u8]>::to_vec)
        .collect())
}

/// The value of attribute `name` of `file`, `None` when it has none.
fn value(file: &File, name: &std::ffi::CStr) -> io::Result<Option<Vec<u8>>> {
    let mut value = Vec::new();
    loop {
        let size = match rustix::fs::fgetxattr_query(file, name) {
            Ok(size) => size,
            Err(Errno::NODATA) => return Ok(None),
            Err(error) => return Err(error.into()),
        };
        if size == 0 {
            return Ok(Some(Vec::new()));
        }
        value.resize(size, 0);
        match rustix::fs::fgetxattr(file, name, &mut value[..]) {
            Ok(n) => {
                value.truncate(n);
                return Ok(Some(value));
            }
            Err(Errno::RANGE) => continue,
            Err(Errno::NODATA) => return Ok(None),
            Err(error) => return Err(error.into()),
        }
    }
}

/// Copies every extended attribute of `from` onto `to`. One `to` already holds with the same
/// value (a security label the directory gives every new file) is left as it is.
fn copy_xattrs(from: &File, to: &File) -> io::Result<()> {
    for name in names(from)? {
        let Ok(name) = std::ffi::CString::new(name) else {
            continue;
        };
        let Some(value) = value(from, &name)? else {
            continue;
        };
        if self::value(to, &name)?.as_deref() == Some(&value[..]) {
            continue;
        }
        rustix::fs::fsetxattr(to, &name, &value, XattrFlags::empty()).map_err(|error| {
            io::Error::new(
                io::Error::from(error).kind(),
                format!(
                    "cannot carry over the extended attribute {}: {}",
                    name.to_string_lossy(),
                    io::Error::from(error)
                ),
            )
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_attributes_follow_where_the_file_system_keeps_them() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        fs::write(&a, "a").unwrap();
        fs::write(&b, "b").unwrap();
        let (from, to) = (File::open(&a).unwrap(), File::open(&b).unwrap());
        let name = c"user.condense-test";
        if rustix::fs::fsetxattr(&from, name, b"kept", XattrFlags::empty()).is_err() {
            // No user attributes here: nothing to carry, and nothing fails.
            carry_over(&from, Owner::of(&from).unwrap(), &to).unwrap();
            return;
        }
        carry_over(&from, Owner::of(&from).unwrap(), &to).unwrap();
        assert_eq!(value(&to, name).unwrap().as_deref(), Some(&b"kept"[..]));
        assert!(names(&to)
            .unwrap()
            .contains(&b"user.condense-test".to_vec()));
    }
}
