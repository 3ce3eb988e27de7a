/* Safe XML loading (../shared/notes/xml-safety.md): we read the file
 * ourselves with a size bound and give libxml2 memory, so no URL is ever
 * opened and nothing is decompressed; no network, no DTD loading, no entity
 * substitution, and any DOCTYPE stops the parse, so no entity is ever
 * declared. Errors go to a per-parse handler, never to global state. */
#define _POSIX_C_SOURCE 200809L   /* O_CLOEXEC, fstat */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>

#include "internal.h"
#include "../base/mem.h"

void bpel_init(void)
{
    xmlInitParser();
}

int bpel_read_file(const char *path, size_t max, char **buf, size_t *len, diag *err)
{
    if (max == 0)
        max = BPEL_MAX_FILE;
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return diag_set(err, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0) {
        close(fd);
        return diag_set(err, "%s: cannot stat: %s", path, strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return diag_set(err, "%s: is a directory", path);
    }
    /* Refuse early when the size is known; devices and pipes are bounded by
     * the read loop below. */
    if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max) {
        close(fd);
        return diag_set(err, "%s: file too large (%llu bytes, limit %zu)", path,
                        (unsigned long long)st.st_size, max);
    }
    size_t cap = 4096, n = 0;
    char *b = malloc(cap + 1);
    if (!b) {
        close(fd);
        return diag_set(err, "out of memory");
    }
    for (;;) {
        if (n == cap) {
            if (cap > max) {
                free(b);
                close(fd);
                return diag_set(err, "%s: file too large (more than %zu bytes)", path, max);
            }
            size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
            if (mem_grow((void **)&b, ncap + 1, 1) < 0) {
                free(b);
                close(fd);
                return diag_set(err, "out of memory");
            }
            cap = ncap;
        }
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(b);
            close(fd);
            return diag_set(err, "%s: read error: %s", path, strerror(e));
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (n > max) {
            free(b);
            close(fd);
            return diag_set(err, "%s: file too large (more than %zu bytes)", path, max);
        }
    }
    close(fd);
    b[n] = '\0';
    const unsigned char *u = (const unsigned char *)b;
    if ((n >= 2 && u[0] == 0x1f && u[1] == 0x8b) ||
        (n >= 6 && memcmp(u, "\xfd" "7zXZ\0", 6) == 0) ||
        (n >= 3 && memcmp(u, "BZh", 3) == 0)) {
        free(b);
        return diag_set(err, "%s: compressed file (gzip/xz/bzip2): not accepted, decompress it "
                        "first", path);
    }
    *buf = b;
    *len = n;
    return 0;
}

/* The state of one parse, reached from the context's _private field. */
typedef struct parse_state {
    const char *file;
    diag *err;
    int doctype_line;    /* > 0 once a DOCTYPE was seen */
    int nswarn;
    int failed;          /* an error message is in err */
} parse_state;

static void on_error(void *user, xmlErrorPtr e)
{
    xmlParserCtxtPtr ctxt = user;
    parse_state *st = ctxt ? ctxt->_private : NULL;
    if (!st || !e)
        return;
    /* A namespace URI libxml2 dislikes (e.g. a leading space) on a
     * well-formed file is a warning: real BPEL files have them. Other
     * namespace errors (an undeclared prefix) are not: the element would
     * silently fall out of every BPEL namespace. */
    if (e->domain == XML_FROM_NAMESPACE &&
        (e->code == XML_WAR_NS_URI || e->code == XML_WAR_NS_URI_RELATIVE)) {
        st->nswarn = 1;
        return;
    }
    if (e->level == XML_ERR_WARNING)
        return;
    if (st->failed || st->doctype_line)
        return;
    st->failed = 1;
    char msg[512];
    size_t k = 0;
    /* libxml2's messages end with a newline; drop it. */
    for (const char *s = e->message ? e->message : "XML error"; *s && k + 1 < sizeof msg; s++)
        if (*s != '\n')
            msg[k++] = *s;
    msg[k] = '\0';
    diag_at(st->err, st->file, e->line, e->int2 > 0 ? e->int2 : 0, "XML error: %s", msg);
}

/* A DOCTYPE is where DTDs and entities come from; BPEL never needs one. We
 * stop before its internal subset is read. */
static void on_internal_subset(void *user, const xmlChar *name, const xmlChar *ext,
                               const xmlChar *sys)
{
    (void)name;
    (void)ext;
    (void)sys;
    xmlParserCtxtPtr ctxt = user;
    parse_state *st = ctxt->_private;
    if (st && !st->doctype_line)
        st->doctype_line = ctxt->input ? ctxt->input->line : 1;
    xmlStopParser(ctxt);
}

xmlDocPtr bpel_xml_parse(const char *buf, size_t len, const char *file, int *nswarn, diag *err)
{
    *nswarn = 0;
    if (len > BPEL_MAX_FILE) {
        diag_set(err, "%s: document too large (%zu bytes, limit %zu)", file, len, BPEL_MAX_FILE);
        return NULL;
    }
    if (len > 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b) {
        diag_set(err, "%s: compressed data (gzip): not accepted", file);
        return NULL;
    }
    xmlParserCtxtPtr ctxt = xmlCreateMemoryParserCtxt(buf, (int)len);
    if (!ctxt) {
        diag_set(err, "%s: cannot create an XML parser (out of memory)", file);
        return NULL;
    }
    parse_state st = { .file = file, .err = err };
    ctxt->_private = &st;
    /* The context owns its own copy of the SAX handler: changing it here
     * touches no global state. */
    ctxt->sax->serror = on_error;
    ctxt->sax->internalSubset = on_internal_subset;
    ctxt->sax->externalSubset = NULL;
    ctxt->vctxt.error = NULL;
    ctxt->vctxt.warning = NULL;
    /* No NOENT (entities stay references), no DTDLOAD/DTDATTR/DTDVALID,
     * no XINCLUDE, no HUGE (libxml2's own depth and size limits stay). */
    xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOCDATA | XML_PARSE_BIG_LINES);
    xmlParseDocument(ctxt);
    xmlDocPtr doc = ctxt->myDoc;
    ctxt->myDoc = NULL;
    int wellformed = ctxt->wellFormed;
    int errNo = ctxt->errNo;
    ctxt->_private = NULL;
    xmlFreeParserCtxt(ctxt);

    if (st.doctype_line) {
        xmlFreeDoc(doc);
        diag_at(err, file, st.doctype_line, 0,
                "DOCTYPE declarations are not accepted (no DTDs or entities in BPEL input)");
        return NULL;
    }
    if (!wellformed || !doc || st.failed) {
        xmlFreeDoc(doc);
        if (!st.failed)
            diag_set(err, "%s: not well-formed XML (libxml2 error %d)", file, errNo);
        return NULL;
    }
    if (doc->intSubset || doc->extSubset) {
        /* Belt and braces: the hook above should have stopped the parse. */
        xmlFreeDoc(doc);
        diag_set(err, "%s: DOCTYPE declarations are not accepted", file);
        return NULL;
    }
    if (!xmlDocGetRootElement(doc)) {
        xmlFreeDoc(doc);
        diag_set(err, "%s: no root element", file);
        return NULL;
    }
    *nswarn = st.nswarn;
    return doc;
}
