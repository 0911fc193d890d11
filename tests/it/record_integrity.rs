//! A review changes only what it reviews (issue 34): a record is bound to its
//! repository, a supersede is applied once, and no input crashes a command.
