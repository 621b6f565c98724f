// Why this shim exists: Swift imports avahi-client, its threaded poll and avahi-common's error
// strings through this one header.
#pragma once
#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-client/lookup.h>
#include <avahi-common/error.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/alternative.h>
#include <avahi-common/strlst.h>
#include <avahi-common/malloc.h>
