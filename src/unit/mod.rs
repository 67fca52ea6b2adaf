//! A skill unit as check and migrate both see it: the runtime file its folder holds, and the
//! libraries its scripts source. It sits above analysis and rewriting and below the commands.

pub mod runtime;
pub mod sourcing;
