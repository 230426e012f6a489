#include "CSQLiteSettings.h"
#include <sqlite3.h>

int sortkit_sqlite_memory_statistics_off(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

long long sortkit_sqlite_memory_used(void) {
    return (long long)sqlite3_memory_used();
}
