/*
 * Build-configuration switches for runtime/core.
 */
#pragma once

/*
 * When on, enum-to-string helpers such as tag_to_string(Tag) are available.
 * Small embedded builds may turn this off to save the string tables.
 */
#ifndef ET_ENABLE_ENUM_STRINGS
#define ET_ENABLE_ENUM_STRINGS 1
#endif
