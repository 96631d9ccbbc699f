// libmicrohttpd's header expects these before it (see NOTES-swift-linux.md §8).
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

// The socket of a connection (MHD_get_connection_info is variadic, which Swift cannot call):
// the server's watchdog shuts down connections whose headers or body are late.
static inline int cy_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}
