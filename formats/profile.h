/*
 * profile.h -- the profile's format (docs/profile-format.md): the name and the version
 * its top-level `format` and `version` members carry, defined once for the writer
 * (libshim/profile_writer.c) and the reader (shimview/model/profile.c).
 *
 * A reader takes every version up to PROFILE_FORMAT_VERSION and refuses a newer one,
 * naming both. The writer writes version 1, and version 2 when part of the profile is in
 * its table file (profile_table.proto; docs/profile-format.md, "Large profiles").
 */
#ifndef SHIM_FORMATS_PROFILE_H
#define SHIM_FORMATS_PROFILE_H

#define PROFILE_FORMAT_NAME    "shim-profile"
#define PROFILE_FORMAT_VERSION       2 /* the newest version written and read */
#define PROFILE_FORMAT_VERSION_INLINE 1 /* a profile whose entries are all in the JSON */

#endif /* SHIM_FORMATS_PROFILE_H */
