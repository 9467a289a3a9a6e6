! The ring test in Fortran, built three times: with mpif.h, `use mpi` and
! `use mpi_f08`. Each iteration sends once with MPI_Send, once with MPI_Isend
! and once through a persistent request (MPI_Start), and a final MPI_Startall:
! 7 messages of 10*(rank+1) integers from each rank to the next. With f08,
! Init/Start/Startall bypass the C wrappers; every message must still be
! counted exactly once.
program commprof_ring
#if defined(COMMPROF_USE_F08)
  use mpi_f08
#elif defined(COMMPROF_USE_MPI)
  use mpi
#endif
  implicit none
#if defined(COMMPROF_USE_MPIF)
  include 'mpif.h'
#endif
#if defined(COMMPROF_USE_F08)
  type(MPI_Request) :: reqs(2), persistent(1), recv
#else
  integer :: reqs(2), persistent(1), recv
#endif
  integer :: ierr, rank, nprocs, next, prev, count, prev_count, it
  integer, allocatable :: sbuf(:), rbuf(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  next = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)
  count = 10 * (rank + 1)
  prev_count = 10 * (prev + 1)
  allocate(sbuf(count), rbuf(prev_count))
  sbuf = rank

  call MPI_Send_init(sbuf, count, MPI_INTEGER, next, 3, MPI_COMM_WORLD, persistent(1), ierr)
  do it = 1, 2
    call MPI_Irecv(rbuf, prev_count, MPI_INTEGER, prev, 1, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Send(sbuf, count, MPI_INTEGER, next, 1, MPI_COMM_WORLD, ierr)
    call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)

    call MPI_Irecv(rbuf, prev_count, MPI_INTEGER, prev, 2, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(sbuf, count, MPI_INTEGER, next, 2, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)

    call MPI_Irecv(rbuf, prev_count, MPI_INTEGER, prev, 3, MPI_COMM_WORLD, recv, ierr)
    call MPI_Start(persistent(1), ierr)
    call MPI_Wait(persistent(1), MPI_STATUS_IGNORE, ierr)
    call MPI_Wait(recv, MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_Irecv(rbuf, prev_count, MPI_INTEGER, prev, 3, MPI_COMM_WORLD, recv, ierr)
  call MPI_Startall(1, persistent, ierr)
  call MPI_Wait(persistent(1), MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(recv, MPI_STATUS_IGNORE, ierr)
  call MPI_Request_free(persistent(1), ierr)

  call MPI_Finalize(ierr)
end program commprof_ring
