async def fetch(url):
    async with session.get(url) as resp:
        data = await resp.json()
    async for item in stream():
        await process(item)
    return [x async for x in aiter()]
