/* The daemon's version (--version, the metrics' zinctun_build_info). */
#ifndef ZT_VERSION_H
#define ZT_VERSION_H

#define ZINCTUN_VERSION "0.1.0"

#endif
