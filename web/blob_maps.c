/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Blobs sent from a mapping of their file: see blob_maps.h. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "web/blob_maps.h"

#define BLOB_MAPS_SLOTS 64

struct blob_map {
	dev_t dev;
	ino_t ino;
	off_t size;                 /* 0: the slot is free */
	struct timespec ctime;
	void *data;
	unsigned long refs;         /* responses sending from it */
	unsigned long long used;    /* when last asked for, in asks */
	struct blob_maps *owner;
};

struct blob_maps {
	pthread_mutex_t lock;       /* guards all below */
	struct blob_map slot[BLOB_MAPS_SLOTS];
	uint64_t mapped;            /* bytes of all mappings */
	unsigned long long asks;
};

struct blob_maps *blob_maps_new(void)
{
	struct blob_maps *m = calloc(1, sizeof(*m));

	if (m && pthread_mutex_init(&m->lock, NULL)) {
		free(m);
		return NULL;
	}
	for (size_t i = 0; m && i < BLOB_MAPS_SLOTS; i++)
		m->slot[i].owner = m;
	return m;
}

static void blob_map_drop(struct blob_maps *m, struct blob_map *e)
{
	munmap(e->data, (size_t)e->size);
	m->mapped -= (uint64_t)e->size;
	e->size = 0;
	e->data = NULL;
}

void blob_maps_free(struct blob_maps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < BLOB_MAPS_SLOTS; i++)
		if (m->slot[i].size)
			blob_map_drop(m, &m->slot[i]);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* The end of a response sent from e's mapping. */
static void blob_map_release(void *cls)
{
	struct blob_map *e = cls;

	pthread_mutex_lock(&e->owner->lock);
	e->refs--;
	pthread_mutex_unlock(&e->owner->lock);
}

/* A free slot with room for size more bytes mapped, unmapping the least
 * recently asked-for mappings not in use; NULL when there is none. */
static struct blob_map *blob_map_room(struct blob_maps *m, uint64_t size)
{
	for (;;) {
		struct blob_map *free_slot = NULL, *old = NULL;

		for (size_t i = 0; i < BLOB_MAPS_SLOTS; i++) {
			struct blob_map *e = &m->slot[i];

			if (!e->size)
				free_slot = free_slot ? free_slot : e;
			else if (!e->refs && (!old || e->used < old->used))
				old = e;
		}
		if (free_slot && m->mapped + size <= BLOB_MAPS_BUDGET)
			return free_slot;
		if (!old)
			return NULL;
		blob_map_drop(m, old);
	}
}

struct MHD_Response *blob_maps_response(struct blob_maps *m, int fd, const struct stat *sb,
					uint64_t start, uint64_t length)
{
	struct MHD_Response *resp;
	struct blob_map *e = NULL;

	if (!m || sb->st_size <= 0 || (uint64_t)sb->st_size > BLOB_MAPS_MAX ||
	    start + length > (uint64_t)sb->st_size)
		return NULL;
	pthread_mutex_lock(&m->lock);
	m->asks++;
	for (size_t i = 0; i < BLOB_MAPS_SLOTS && !e; i++) {
		struct blob_map *s = &m->slot[i];

		if (s->size && s->dev == sb->st_dev && s->ino == sb->st_ino &&
		    s->size == sb->st_size && s->ctime.tv_sec == sb->st_ctim.tv_sec &&
		    s->ctime.tv_nsec == sb->st_ctim.tv_nsec)
			e = s;
	}
	if (!e && (e = blob_map_room(m, (uint64_t)sb->st_size))) {
		void *data = mmap(NULL, (size_t)sb->st_size, PROT_READ, MAP_SHARED, fd, 0);

		if (data == MAP_FAILED) {
			e = NULL;
		} else {
			e->dev = sb->st_dev;
			e->ino = sb->st_ino;
			e->size = sb->st_size;
			e->ctime = sb->st_ctim;
			e->data = data;
			e->refs = 0;
			m->mapped += (uint64_t)sb->st_size;
		}
	}
	if (e) {
		e->refs++;
		e->used = m->asks;
	}
	pthread_mutex_unlock(&m->lock);
	if (!e)
		return NULL;
	resp = MHD_create_response_from_buffer_with_free_callback_cls(
		(size_t)length, (char *)e->data + start, blob_map_release, e);
	if (!resp)
		blob_map_release(e);
	return resp;
}

void blob_maps_stats(struct blob_maps *m, unsigned *files, uint64_t *bytes)
{
	*files = 0;
	*bytes = 0;
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	for (size_t i = 0; i < BLOB_MAPS_SLOTS; i++)
		*files += m->slot[i].size != 0;
	*bytes = m->mapped;
	pthread_mutex_unlock(&m->lock);
}
