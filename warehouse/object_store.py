"""A home on object storage (``s3://bucket/home``): its errors told in one line, checked early.

The S3 client raises its own exceptions (``NoCredentialsError``, ``EndpointConnectionError``;
``s3fs`` turns S3's error codes into ``PermissionError`` or ``FileNotFoundError``). Shown raw
they name neither the home nor what to set; :func:`object_store_error_message` gives one line
that names both (the ``AWS_*`` variables the client reads). :func:`check_object_store_home`
asks the store once, before a command starts Prefect, whether the home can be used and whether
it holds a warehouse yet. Imports nothing heavy: the S3 client is imported only to ask.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from affidavit.warehouse.home import HomePaths

__all__ = ["ObjectStoreError", "check_object_store_home", "object_store_error_message"]

_META = "_warehouse.json"
"""The layout file every warehouse writes first (``affidavit.warehouse.store``)."""

_CREDENTIAL_ERRORS = frozenset({"NoCredentialsError", "PartialCredentialsError",
                                "CredentialRetrievalError", "NoAuthTokenError",
                                "UnauthorizedSSOTokenError", "SSOTokenLoadError",
                                "ProfileNotFound"})
"""botocore exceptions that mean the client found no usable credentials."""

_CONNECTION_ERRORS = frozenset({"EndpointConnectionError", "ConnectTimeoutError",
                                "ReadTimeoutError", "ConnectionClosedError",
                                "EndpointResolutionError", "ProxyConnectionError",
                                "SSLError", "HTTPClientError", "ClientConnectorError"})
"""botocore / aiohttp exceptions that mean the S3 endpoint could not be reached."""

_CREDENTIAL_VARS = "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE"


class ObjectStoreError(RuntimeError):
    """A home on object storage cannot be used; the message is one line naming what to set."""


def _names(exc: BaseException) -> set[str]:
    return {t.__name__ for t in type(exc).__mro__}


def _is_client_error(exc: BaseException) -> bool:
    return any(t.__module__.split(".")[0] in ("botocore", "aiobotocore", "s3fs", "aiohttp")
               for t in type(exc).__mro__)


def object_store_error_message(exc: BaseException, url: str,
                               environ: Mapping[str, str] | None = None) -> str | None:
    """Return one line for an error of the object store under the home ``url``, or None.

    Args:
        exc: The exception (from the S3 client, or ``s3fs``'s translation of an S3 error).
        url: The home (``s3://bucket/home``).
        environ: Environment naming the endpoint (default ``os.environ``).

    Returns:
        ``"cannot use the home s3://…: <what went wrong>: <what to set>"``, or None when the
        exception is not the object store's (a bug, a local disk error).

    >>> class NoCredentialsError(Exception): __module__ = "botocore.exceptions"
    >>> object_store_error_message(NoCredentialsError("Unable to locate credentials"),
    ...                            "s3://news/h")[:60]
    'cannot use the home s3://news/h: no S3 credentials found: se'
    """
    env = os.environ if environ is None else environ
    if str(exc).startswith(f"cannot use the home {url}"):  # told already
        return str(exc)
    names = _names(exc)
    bucket = url.split("://", 1)[-1].split("/", 1)[0]
    head = f"cannot use the home {url}"
    endpoint = env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL")
    text = " ".join(str(exc).split())[:200]
    if names & _CREDENTIAL_ERRORS:
        return (f"{head}: no S3 credentials found: set {_CREDENTIAL_VARS} (and "
                "AWS_ENDPOINT_URL for a store other than AWS)")
    if names & _CONNECTION_ERRORS:
        where = f"the S3 endpoint {endpoint}" if endpoint else "AWS S3"
        return (f"{head}: cannot reach {where} ({text}): set AWS_ENDPOINT_URL to the address "
                "of your S3 service (unset it for AWS), and check the network")
    if isinstance(exc, PermissionError):
        return (f"{head}: access denied to bucket {bucket!r} ({text}): check {_CREDENTIAL_VARS}"
                " (AWS_SESSION_TOKEN for temporary keys) and the bucket's policy")
    if isinstance(exc, FileNotFoundError) and "bucket" in str(exc).lower():
        return (f"{head}: the bucket {bucket!r} does not exist: create it, or check "
                "AWS_ENDPOINT_URL and AWS_DEFAULT_REGION (the store it was looked for in)")
    if _is_client_error(exc) or (exc.__cause__ is not None and _is_client_error(exc.__cause__)):
        return (f"{head}: the S3 service refused ({type(exc).__name__}: {text}): check "
                f"{_CREDENTIAL_VARS}, AWS_ENDPOINT_URL and AWS_DEFAULT_REGION")
    return None


def check_object_store_home(paths: HomePaths) -> bool:
    """Ask the object store whether the home can be used and holds a warehouse yet.

    One request in the common case (the warehouse's layout file), two when it is missing (the
    bucket itself).

    Args:
        paths: A home on object storage (``paths.url`` set).

    Returns:
        True when the home's warehouse exists, False when the bucket exists but the home does
        not yet (a command that writes creates it).

    Raises:
        ObjectStoreError: One line naming the home and what to set: no credentials, the
            endpoint unreachable, access denied, no such bucket, ``s3fs`` not installed.
    """
    assert paths.url is not None
    try:
        import fsspec

        fs = fsspec.filesystem(paths.url.split("://", 1)[0], use_listings_cache=False)
    except ImportError as exc:
        raise ObjectStoreError(f"cannot use the home {paths.url}: it needs "
                               f"{exc.name or 's3fs'} installed (pip install "
                               "'affidavit[s3]')") from exc
    bucket = paths.url.split("://", 1)[1].split("/", 1)[0]
    try:
        try:
            fs.info(f"{paths.tables_url}/{_META}")
            return True
        except FileNotFoundError:
            pass
        try:
            fs.info(bucket)
        except FileNotFoundError as exc:
            raise FileNotFoundError(f"the specified bucket {bucket!r} does not exist") from exc
        return False
    except Exception as exc:
        message = object_store_error_message(exc, paths.url)
        if message is None:
            raise
        raise ObjectStoreError(message) from exc
