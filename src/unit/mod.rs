//! A skill unit as check and migrate both see it: the runtime file its folder holds, the
//! libraries its scripts source, and the scripts whose stdout another of them reads. It sits above analysis and rewriting and below the commands.

pub mod callers;
pub mod runtime;
pub mod sourcing;
