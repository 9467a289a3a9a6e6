// The tests are written against MPI 4 (MPICH 4.0). Built against an MPI 3.1
// library (Open MPI 4.1), the large-count calls they make become the int
// calls with the same arguments, which send exactly the same bytes: the
// expected matrices stay the same. Static, so the profiler's MPI_* wrappers
// still see the int calls.
#pragma once

#include <mpi.h>

#if MPI_VERSION < 4
static inline int MPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return MPI_Send(buf, static_cast<int>(count), type, dest, tag, comm);
}
static inline int MPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                              MPI_Request* request) {
  return MPI_Isend(buf, static_cast<int>(count), type, dest, tag, comm, request);
}
static inline int MPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                                  MPI_Comm comm, MPI_Request* request) {
  return MPI_Send_init(buf, static_cast<int>(count), type, dest, tag, comm, request);
}
static inline int MPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                                 int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                                 int recvtag, MPI_Comm comm, MPI_Status* status) {
  return MPI_Sendrecv(sendbuf, static_cast<int>(sendcount), sendtype, dest, sendtag, recvbuf,
                      static_cast<int>(recvcount), recvtype, source, recvtag, comm, status);
}
static inline int MPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype type, int dest, int sendtag,
                                         int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return MPI_Sendrecv_replace(buf, static_cast<int>(count), type, dest, sendtag, source, recvtag, comm, status);
}
#endif
