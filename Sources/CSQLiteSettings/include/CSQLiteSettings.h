// SQLite's process-wide settings that Swift can't reach: `sqlite3_config` is variadic, and
// Swift imports no variadic C function.
#ifndef SORTKIT_CSQLITESETTINGS_H
#define SORTKIT_CSQLITESETTINGS_H

/// Turns off SQLite's memory statistics for the whole process
/// (`sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0)`), and returns SQLite's result code:
/// `SQLITE_OK` (0), or `SQLITE_MISUSE` (21) once SQLite is in use in the process (the setting
/// can only change before `sqlite3_initialize`).
int sortkit_sqlite_memory_statistics_off(void);

/// The bytes of memory SQLite's statistics count as in use (`sqlite3_memory_used`): 0 while
/// the statistics are off.
long long sortkit_sqlite_memory_used(void);

#endif
