! Collectives from Fortran, built three times like ring.F90 (mpif.h, `use
! mpi`, `use mpi_f08`): MPI_IN_PLACE (a Fortran common block, not C's
! sentinel), an array of datatype handles (Alltoallw) and rooted/reduction
! records. Expectation built into commprof_check (--fortran-collectives P):
! every rank r sends every other rank j one in-place alltoall block of 2
! integers (8 bytes) and one alltoallw block of 1 element, DOUBLE PRECISION
! to odd j and INTEGER to even j (8 or 4 bytes); one bcast of 3 integers
! from root 0 and one allreduce of 2 doubles on MPI_COMM_WORLD.
program commprof_collectives
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
  type(MPI_Datatype), allocatable :: sendtypes(:), recvtypes(:)
#else
  integer, allocatable :: sendtypes(:), recvtypes(:)
#endif
  integer :: ierr, rank, nprocs, j
  integer, allocatable :: inplace(:), counts(:), displs(:)
  double precision, allocatable :: wsend(:), wrecv(:)
  integer :: header(3)
  double precision :: local(2), total(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  allocate(inplace(2 * nprocs))
  inplace = rank
  call MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inplace, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)

  allocate(sendtypes(nprocs), recvtypes(nprocs), counts(nprocs), displs(nprocs), wsend(nprocs), wrecv(nprocs))
  do j = 0, nprocs - 1
    counts(j + 1) = 1
    displs(j + 1) = 8 * j
    if (mod(j, 2) == 1) then
      sendtypes(j + 1) = MPI_DOUBLE_PRECISION
    else
      sendtypes(j + 1) = MPI_INTEGER
    end if
    if (mod(rank, 2) == 1) then
      recvtypes(j + 1) = MPI_DOUBLE_PRECISION
    else
      recvtypes(j + 1) = MPI_INTEGER
    end if
  end do
  wsend = 1.0d0
  call MPI_Alltoallw(wsend, counts, displs, sendtypes, wrecv, counts, displs, recvtypes, MPI_COMM_WORLD, ierr)

  header = [1, 2, 3]
  call MPI_Bcast(header, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  local = 1.0d0
  call MPI_Allreduce(local, total, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)

  call MPI_Finalize(ierr)
end program commprof_collectives
